//! The Twisted article's race, for real: two payments on one account, each
//! across a slow request to the server.

use std::time::Duration;

use scheduler::race::{Locking, PAYMENTS, story};

use crate::util::server;

#[test]
fn without_a_lock_one_payment_is_lost() {
    let server = server(Duration::from_millis(5));
    let balance = story(server.addr(), Locking::None).expect("the story runs");
    // Both read 0; whichever wrote last is the only one left.
    let alone: Vec<i64> = PAYMENTS.iter().map(|&(_, amount)| amount).collect();
    assert!(alone.contains(&balance), "balance {balance}");
}

#[test]
fn with_the_keyed_lock_none_is_lost() {
    let server = server(Duration::from_millis(5));
    let balance = story(server.addr(), Locking::Keyed).expect("the story runs");
    let total: i64 = PAYMENTS.iter().map(|&(_, amount)| amount).sum();
    assert_eq!(balance, total);
}
