//! Chapter 6, exercise 1: a channel between fibers.
//!
//! Fibers of one scheduler share a thread, so a queue between them needs no
//! atomics: a `RefCell<VecDeque>` is enough. What it needs is *waiting*: a
//! receiver that finds the queue empty must suspend (not spin, not block
//! the thread) until a sender puts something in. [`scheduler::Notification`]
//! is exactly that, with one catch the chapter insists on: a notification
//! carries no state, so the receiver checks the queue, waits, and checks
//! again, in a loop.
//!
//! [`Channel::send`] and [`Channel::close`] are written; write
//! [`Channel::recv`].
//!
//! A receiver fiber reads until the close; the sender's values arrive in
//! order:
//!
//! ```
//! use std::rc::Rc;
//! use ch06_channel::Channel;
//! use scheduler::Scheduler;
//!
//! let sched = Scheduler::new()?;
//! let channel = Rc::new(Channel::new(&sched));
//! let rx = channel.clone();
//! let receiver = sched.spawn(move || std::iter::from_fn(|| rx.recv()).collect::<Vec<_>>())?;
//! sched.spawn(move || {
//!     (0..3).for_each(|n| channel.send(n));
//!     channel.close();
//! })?;
//! sched.run()?;
//! assert_eq!(receiver.try_join(), Some(Ok(vec![0, 1, 2])), "the values in order, then None");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch06-channel");

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use scheduler::{Notification, Scheduler};

/// An unbounded multi-producer, multi-consumer queue for fibers.
#[derive(Debug)]
pub struct Channel<T> {
    queue: RefCell<VecDeque<T>>,
    closed: Cell<bool>,
    /// Receivers wait here for a value (or the close).
    not_empty: Notification,
}

impl<T> Channel<T> {
    /// An empty, open channel on `sched`.
    pub fn new(sched: &Scheduler) -> Channel<T> {
        Channel {
            queue: RefCell::new(VecDeque::new()),
            closed: Cell::new(false),
            not_empty: Notification::named(sched, "a channel"),
        }
    }

    /// Puts `value` at the back of the queue and wakes one waiting
    /// receiver. Never waits.
    pub fn send(&self, value: T) {
        self.queue.borrow_mut().push_back(value);
        self.not_empty.notify_one();
    }

    /// No more values will come: wakes every waiting receiver, so that
    /// each finds the queue empty and closed and returns `None`.
    pub fn close(&self) {
        self.closed.set(true);
        self.not_empty.notify_all();
    }

    // ANCHOR: exercise
    /// The value at the front of the queue, waiting (in this fiber) while
    /// the queue is empty; `None` once the queue is empty *and* closed.
    pub fn recv(&self) -> Option<T> {
        // TODO: after a wake-up, is the value you were woken for still there, and what if the channel closed?
        todo!("after a wake-up, is the value you were woken for still there, and what if the channel closed?")
    }
    // ANCHOR_END: exercise
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;
    use std::time::Duration;

    /// Runs a test's fibers on a thread of their own, so that a lost
    /// wake-up fails within 2 s, saying `never`, instead of hanging.
    fn bounded<T: Send + 'static>(never: &str, test: impl FnOnce() -> T + Send + 'static) -> T {
        testbed::testing::within_or(Duration::from_secs(2), never, test)
    }

    #[test]
    fn values_arrive_in_order() {
        bounded(
            "values arrive in order: its fibers never all finished (a receiver waits for a wake-up that never comes, or never lets the others run)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let channel = Rc::new(Channel::new(&sched));
                let receiver = {
                    let channel = channel.clone();
                    sched
                        .spawn(move || std::iter::from_fn(|| channel.recv()).collect::<Vec<_>>())
                        .expect("spawn")
                };
                let sched2 = sched.clone();
                sched
                    .spawn(move || {
                        for n in 0..5 {
                            channel.send(n);
                            sched2.sleep(Duration::from_millis(1));
                        }
                        channel.close();
                    })
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                assert_eq!(
                    receiver.try_join(),
                    Some(Ok(vec![0, 1, 2, 3, 4])),
                    "the receiver should get every value, in the order they were sent, then None"
                );
            },
        );
    }

    #[test]
    fn a_receiver_waits_for_a_sender_that_comes_later() {
        bounded(
            "a receiver waits for a sender that comes later: its fibers never all finished (a receiver waits for a wake-up that never comes, or never lets the others run)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let channel = Rc::new(Channel::new(&sched));
                // The receiver runs first and finds nothing.
                let receiver = {
                    let channel = channel.clone();
                    sched.spawn(move || channel.recv()).expect("spawn")
                };
                let sched2 = sched.clone();
                sched
                    .spawn(move || {
                        sched2.sleep(Duration::from_millis(2));
                        channel.send("late");
                    })
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                assert_eq!(
                    receiver.try_join(),
                    Some(Ok(Some("late"))),
                    "recv on an empty, open channel should wait for the value sent later"
                );
            },
        );
    }

    #[test]
    fn two_receivers_share_the_values_and_both_see_the_close() {
        bounded(
            "two receivers share the values and both see the close: its fibers never all finished (a receiver waits for a wake-up that never comes, or never lets the others run)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let channel = Rc::new(Channel::new(&sched));
                let receivers: Vec<_> = (0..2)
                    .map(|_| {
                        let channel = channel.clone();
                        sched
                            .spawn(move || std::iter::from_fn(|| channel.recv()).count())
                            .expect("spawn")
                    })
                    .collect();
                let sched2 = sched.clone();
                sched
                    .spawn(move || {
                        for n in 0..10 {
                            channel.send(n);
                            // Sometimes two values arrive in one turn: one woken
                            // receiver may take both, and the other must wait again.
                            if n % 3 == 0 {
                                sched2.yield_now();
                            }
                        }
                        channel.close();
                    })
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                let counts: Vec<usize> = receivers
                    .into_iter()
                    .map(|r| r.try_join().expect("finished").expect("no panic"))
                    .collect();
                assert_eq!(
                    counts.iter().sum::<usize>(),
                    10,
                    "the two receivers together should get each of the 10 values once: {counts:?}"
                );
            },
        );
    }

    #[test]
    fn recv_on_a_closed_empty_channel_does_not_wait() {
        bounded(
            "recv on a closed empty channel does not wait: its fibers never all finished (a receiver waits for a wake-up that never comes, or never lets the others run)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let channel: Rc<Channel<u8>> = Rc::new(Channel::new(&sched));
                channel.close();
                let receiver = sched.spawn(move || channel.recv()).expect("spawn");
                sched.run().expect("the scheduler finishes");
                assert_eq!(
                    receiver.try_join(),
                    Some(Ok(None)),
                    "recv on a closed, empty channel should return None at once"
                );
            },
        );
    }

    #[test]
    fn no_receiver_returns_none_while_the_channel_is_open() {
        bounded(
            "no receiver returns none while the channel is open: its fibers never all finished (a receiver waits for a wake-up that never comes, or never lets the others run)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let channel = Rc::new(Channel::new(&sched));
                // Set just before the close: a `None` seen while it is false came
                // too early.
                let closing = Rc::new(Cell::new(false));
                let receivers: Vec<_> = (0..2)
                    .map(|_| {
                        let (channel, closing) = (channel.clone(), closing.clone());
                        sched
                            .spawn(move || {
                                let mut got = 0;
                                while channel.recv().is_some() {
                                    got += 1;
                                }
                                (got, closing.get())
                            })
                            .expect("spawn")
                    })
                    .collect();
                let sched2 = sched.clone();
                sched
                    .spawn(move || {
                        // Both receivers wait. Two values in one turn wake both;
                        // the first to run takes both, and the second finds the
                        // queue empty after its wake-up, with the channel open.
                        for pair in [[1, 2], [3, 4], [5, 6]] {
                            for value in pair {
                                channel.send(value);
                            }
                            sched2.yield_now();
                            sched2.yield_now();
                        }
                        closing.set(true);
                        channel.close();
                    })
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                let mut total = 0;
                for receiver in receivers {
                    let (got, after_close) =
                        receiver.try_join().expect("finished").expect("no panic");
                    assert!(
                        after_close,
                        "a receiver returned None while the channel was still open"
                    );
                    total += got;
                }
                assert_eq!(
                    total, 6,
                    "the receivers should get the 6 values between them"
                );
            },
        );
    }

    #[test]
    fn values_sent_before_the_close_are_still_received() {
        bounded(
            "values sent before the close are still received: its fibers never all finished (a receiver waits for a wake-up that never comes, or never lets the others run)",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let channel = Rc::new(Channel::new(&sched));
                for value in [1, 2, 3] {
                    channel.send(value);
                }
                channel.close();
                let receiver = sched
                    .spawn(move || std::iter::from_fn(|| channel.recv()).collect::<Vec<_>>())
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                assert_eq!(
                    receiver.try_join(),
                    Some(Ok(vec![1, 2, 3])),
                    "values sent before the close should still be received, and only then None"
                );
            },
        );
    }

    #[test]
    fn a_waiting_receiver_sleeps_until_the_value_comes() {
        let got = testbed::testing::assert_quiet_within(
            Duration::from_secs(2),
            "the receiver never got the value sent 200 ms later (does recv let the sender's fiber run?)",
            "a receiver waiting 200 ms for a send",
            || {
                let sched = Scheduler::new().expect("a scheduler");
                let channel = Rc::new(Channel::new(&sched));
                let receiver = {
                    let channel = channel.clone();
                    sched.spawn(move || channel.recv()).expect("spawn")
                };
                let sched2 = sched.clone();
                sched
                    .spawn(move || {
                        sched2.sleep(Duration::from_millis(200));
                        channel.send(7);
                    })
                    .expect("spawn");
                sched.run().expect("the scheduler finishes");
                receiver.try_join()
            },
        );
        assert_eq!(
            got,
            Some(Ok(Some(7))),
            "the receiver should get the value sent 200 ms later"
        );
    }
}
