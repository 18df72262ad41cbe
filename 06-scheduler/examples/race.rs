//! The Twisted article's race, runnable: `cargo run -p scheduler --example race`.
//!
//! Two card payments on one account, each in its own fiber, each waiting
//! for the slow server to authorise it. Without a lock, one payment is
//! lost; with the account's keyed lock, none is. See `src/race.rs`.

use std::process::ExitCode;
use std::time::Duration;

use scheduler::race::{Locking, PAYMENTS, story};
use testbed::latency::LatencyModel;
use testbed::server::{ServerConfig, SlowServer};

/// How long the "bank" takes to answer each line of a request.
const BANK_LATENCY: Duration = Duration::from_millis(50);

fn main() -> ExitCode {
    let server = match SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(BANK_LATENCY),
        ..ServerConfig::default()
    }) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("error: cannot start the slow server: {e}");
            return ExitCode::FAILURE;
        }
    };
    let expected: i64 = PAYMENTS.iter().map(|&(_, amount)| amount).sum();
    println!("The account starts at 0. Two payments, in two fibers:");
    for (what, amount) in PAYMENTS {
        println!("  {what:<24} {amount:+}");
    }
    println!("The right balance is {expected}.\n");
    for (locking, label) in [
        (Locking::None, "without a lock"),
        (Locking::Keyed, "with KeyedLocks"),
    ] {
        match story(server.addr(), locking) {
            Ok(balance) if balance == expected => {
                println!("{label:<16} balance {balance:>5}: nothing lost");
            }
            Ok(balance) => {
                println!(
                    "{label:<16} balance {balance:>5}: a payment of {:+} was lost",
                    expected - balance
                );
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
