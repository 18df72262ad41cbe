//! The reactor (stage 4): the loop sleeps in stage 4's selector, and a
//! task waiting for a socket is woken when the selector reports it. The
//! bell, a socket other threads write to, wakes the loop too (stage 5).
#![allow(unused)]

use std::cmp::Reverse;
use std::future::Future;
use std::io::Read;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use select::event::{Interest, Token};

use crate::{BELL, Inner, Spawner, lock};

/// Ready when the socket has something to read.
pub struct Readable<'a> {
    spawner: Spawner,
    fd: BorrowedFd<'a>,
    /// It is in the selector and in `readers`.
    registered: bool,
}

impl Spawner {
    /// Ready when `fd` has something to read.
    pub fn readable<'a>(&self, fd: BorrowedFd<'a>) -> Readable<'a> {
        Readable {
            spawner: self.clone(),
            fd,
            registered: false,
        }
    }
}

impl Inner {
    /// Sleeps in the selector until a socket, a wake or the next timer,
    /// and wakes the tasks whose sockets are ready.
    pub(crate) fn wait_for_events(&self) {
        // TODO: how long may the loop sleep, and what does it do with each event it is handed?
        todo!("how long may the loop sleep, and what does it do with each event it is handed?")
    }
}

impl Future for Readable<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // TODO: what does the selector need to know, each time a task waits for this socket, and how does the future learn its event came?
        todo!("what does the selector need to know, each time a task waits for this socket, and how does the future learn its event came?")
    }
}

impl Drop for Readable<'_> {
    fn drop(&mut self) {
        // TODO: the wait is over: what must the selector forget before the socket may close?
        todo!("the wait is over: what must the selector forget before the socket may close?")
    }
}
