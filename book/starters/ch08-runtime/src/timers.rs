//! Timers (stage 3): sleeps, and the loop's part in ending them on time,
//! in deadline order, never early.
#![allow(unused)]

use std::cmp::Reverse;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use crate::{Inner, Spawner};

/// Ready at its deadline, never before.
pub struct Sleep {
    spawner: Spawner,
    deadline: Instant,
    /// Its id once it is in the timer heap.
    id: Option<usize>,
}

impl Spawner {
    /// Ready at `deadline`, never before.
    pub fn sleep_until(&self, deadline: Instant) -> Sleep {
        Sleep {
            spawner: self.clone(),
            deadline,
            id: None,
        }
    }
}

impl Inner {
    /// Wakes every sleep whose deadline has passed.
    pub(crate) fn fire_timers(&self) {
        // TODO: which timers are due, and how do you reach them in deadline order without looking at the others?
        todo!("which timers are due, and how do you reach them in deadline order without looking at the others?")
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // TODO: how does a sleep get into the timer heap, and how does it know, when polled, that it has fired?
        todo!("how does a sleep get into the timer heap, and how does it know, when polled, that it has fired?")
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        // TODO: a sleep dropped before its deadline: what must its timer not do any more?
        todo!("a sleep dropped before its deadline: what must its timer not do any more?")
    }
}
