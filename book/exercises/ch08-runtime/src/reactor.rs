//! The reactor (stage 4): the loop sleeps in stage 4's selector, and a
//! task waiting for a socket is woken when the selector reports it. The
//! bell, a socket other threads write to, wakes the loop too (stage 5).

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
        // EXERCISE-BEGIN: how long may the loop sleep, and what does it do with each event it is handed?
        let busy = !lock(&self.ready.ids).is_empty() || !self.yielded.borrow().is_empty();
        let timeout = if busy {
            Some(Duration::ZERO)
        } else {
            let next = self.timers.borrow().peek().map(|Reverse((at, _))| *at);
            next.map(|at| at.saturating_duration_since(Instant::now()))
        };
        let mut events = Vec::new();
        if let Err(e) = self.selector.borrow_mut().wait(&mut events, timeout) {
            panic!("the selector failed: {e}");
        }
        for event in events {
            if event.token == BELL {
                // Empty it, or it stays readable.
                while matches!((&self.bell).read(&mut [0; 64]), Ok(n) if n > 0) {}
            } else if let Some(Some(waker)) = self
                .readers
                .borrow_mut()
                .get_mut(&event.token)
                .map(Option::take)
            {
                waker.wake();
            }
        }
        // EXERCISE-END
    }
}

impl Future for Readable<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // EXERCISE-BEGIN: what does the selector need to know, each time a task waits for this socket, and how does the future learn its event came?
        let inner = self.spawner.inner.clone();
        let token = Token::new(self.fd.as_raw_fd() as usize);
        if !self.registered {
            // One registration per wait, deleted when the wait ends (in
            // `drop`): a closed descriptor's number, reused, starts afresh.
            if let Err(e) = inner
                .selector
                .borrow_mut()
                .add(self.fd, token, Interest::Read)
            {
                panic!("registering a socket failed: {e}");
            }
            inner
                .readers
                .borrow_mut()
                .insert(token, Some(cx.waker().clone()));
            self.registered = true;
            return Poll::Pending;
        }
        match inner.readers.borrow_mut().get_mut(&token) {
            Some(Some(waker)) => {
                waker.clone_from(cx.waker());
                Poll::Pending
            }
            _ => Poll::Ready(()),
        }
        // EXERCISE-END
    }
}

impl Drop for Readable<'_> {
    fn drop(&mut self) {
        // EXERCISE-BEGIN: the wait is over: what must the selector forget before the socket may close?
        if self.registered {
            let inner = &self.spawner.inner;
            let token = Token::new(self.fd.as_raw_fd() as usize);
            inner.readers.borrow_mut().remove(&token);
            let _ = inner.selector.borrow_mut().delete(self.fd);
        }
        // EXERCISE-END
    }
}
