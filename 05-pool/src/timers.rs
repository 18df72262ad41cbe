//! The deadlines of the pool, in one ordered queue with cancellation.
//!
//! Every timeout of stage 5 is a deadline in this queue: a reply that is
//! late (read timeout), a connection idle for too long (idle timeout), a
//! checkout that waited too long for a connection (checkout timeout), a
//! handshake that does not finish (connect timeout), the end of a reconnect
//! backoff. The loop asks it one question before every wait, "when is the
//! earliest deadline?", and sleeps exactly until then unless a socket moves
//! first; after the wait it takes out every deadline that has passed.
//!
//! Most deadlines never fire: a reply arrives, the timer must go. So the
//! queue needs three operations to be cheap: insert, take the minimum, and
//! remove any entry. The classic answer is a binary heap whose entries know
//! their own index (the Ruby source article's `bheap_idx`); chapter 6 builds that one
//! by hand (`06-scheduler/src/heap.rs`), along with the bug its source article has.
//! Here the standard library already has a structure with all three
//! operations in O(log n): an ordered map, [`BTreeMap`], keyed by
//! `(deadline, sequence number)`. The key *is* the cancellation handle
//! ([`TimerKey`]), and the sequence number breaks ties, so two timers due
//! at the same instant fire in the order they were set.
//!
//! Not here: what a timer does when it fires (the client's `Due`), reading
//! the clock (callers pass `now`).
//!
//! # Examples
//!
//! Most timers are cancelled before they fire; the rest come out earliest
//! first, once their deadline has passed:
//!
//! ```
//! use std::time::{Duration, Instant};
//!
//! use pool::timers::Timers;
//!
//! let start = Instant::now();
//! let ms = |n| start + Duration::from_millis(n);
//! let mut timers = Timers::new();
//! let read = timers.insert(ms(50), "read timeout");
//! timers.insert(ms(30), "idle timeout");
//! timers.insert(ms(90), "checkout timeout");
//! // The reply came: its timer goes, and the wait sleeps until 30 ms.
//! assert_eq!(timers.cancel(read), Some("read timeout"));
//! assert_eq!(timers.next_deadline(), Some(ms(30)));
//! // At 60 ms, one deadline has passed.
//! assert_eq!(timers.pop_due(ms(60)).map(|(_, what)| what), Some("idle timeout"));
//! assert_eq!(timers.pop_due(ms(60)), None);
//! assert_eq!(timers.next_deadline(), Some(ms(90)));
//! ```

use std::collections::BTreeMap;
use std::time::Instant;

/// Names one pending timer: pass it to [`Timers::cancel`]. It is `Copy`, and
/// stale once the timer fired or was cancelled (cancelling it again finds
/// nothing and is harmless).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerKey {
    deadline: Instant,
    seq: u64,
}

impl TimerKey {
    /// When the timer is due.
    pub fn deadline(self) -> Instant {
        self.deadline
    }
}

// ANCHOR: timers
/// Pending deadlines, earliest first, each carrying a value `T` (what to do
/// when it fires).
#[derive(Debug)]
pub struct Timers<T> {
    /// Ordered by deadline, then by the order the timers were set.
    queue: BTreeMap<TimerKey, T>,
    /// The next timer's sequence number.
    next_seq: u64,
}

impl<T> Timers<T> {
    /// No timers.
    pub fn new() -> Timers<T> {
        Timers {
            queue: BTreeMap::new(),
            next_seq: 0,
        }
    }

    /// Sets a timer for `deadline`; the key cancels it.
    pub fn insert(&mut self, deadline: Instant, value: T) -> TimerKey {
        let key = TimerKey {
            deadline,
            seq: self.next_seq,
        };
        self.next_seq += 1;
        self.queue.insert(key, value);
        key
    }

    /// Cancels a timer and returns its value; `None` if it already fired or
    /// was cancelled.
    pub fn cancel(&mut self, key: TimerKey) -> Option<T> {
        self.queue.remove(&key)
    }

    /// The earliest deadline: how long the loop may sleep.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.queue.first_key_value().map(|(key, _)| key.deadline)
    }

    /// Takes out the earliest timer if it is due at `now`. A timer set for
    /// exactly `now` is due: going back to sleep for zero time would be a
    /// busy loop.
    pub fn pop_due(&mut self, now: Instant) -> Option<(TimerKey, T)> {
        match self.queue.first_key_value() {
            Some((key, _)) if key.deadline <= now => self.queue.pop_first(),
            _ => None,
        }
    }
    // ANCHOR_END: timers

    /// How many timers are pending. Only the tests ask: the pool needs the
    /// earliest deadline, never the count.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// True when no timer is pending.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

impl<T> Default for Timers<T> {
    fn default() -> Timers<T> {
        Timers::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::Duration;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8),
        Cancel(usize),
        PopDue(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..20).prop_map(Op::Insert),
            (0usize..40).prop_map(Op::Cancel),
            (0u8..25).prop_map(Op::PopDue),
        ]
    }

    proptest! {
        /// The queue agrees with the plainest possible model: a list of
        /// (deadline, order set, value), searched linearly.
        #[test]
        fn timers_agree_with_a_linear_model(ops in proptest::collection::vec(op(), 0..80)) {
            let t0 = Instant::now();
            let at = |ms: u8| t0 + Duration::from_millis(u64::from(ms));
            let mut timers = Timers::new();
            // (deadline, sequence number, value), in no particular order.
            let mut model: Vec<(Instant, u64, usize)> = Vec::new();
            let mut keys = Vec::new();
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(ms) => {
                        let key = timers.insert(at(ms), n);
                        keys.push(key);
                        model.push((at(ms), key.seq, n));
                    }
                    Op::Cancel(i) => {
                        let Some(&key) = keys.get(i) else { continue };
                        let expected = model
                            .iter()
                            .position(|&(_, seq, _)| seq == key.seq)
                            .map(|p| model.remove(p).2);
                        prop_assert_eq!(timers.cancel(key), expected);
                    }
                    Op::PopDue(ms) => {
                        let earliest = model
                            .iter()
                            .enumerate()
                            .filter(|(_, (d, _, _))| *d <= at(ms))
                            .min_by_key(|(_, (d, seq, _))| (*d, *seq))
                            .map(|(p, _)| p);
                        let expected = earliest.map(|p| model.remove(p).2);
                        prop_assert_eq!(timers.pop_due(at(ms)).map(|(_, v)| v), expected);
                    }
                }
                prop_assert_eq!(timers.len(), model.len());
                prop_assert_eq!(
                    timers.next_deadline(),
                    model.iter().map(|&(d, _, _)| d).min()
                );
            }
        }
    }

    #[test]
    fn timers_due_at_the_same_instant_fire_in_the_order_they_were_set() {
        let now = Instant::now();
        let mut timers = Timers::new();
        let first = timers.insert(now, "first");
        timers.insert(now, "second");
        timers.insert(now - Duration::from_millis(1), "earlier");
        assert_eq!(timers.pop_due(now).map(|(_, v)| v), Some("earlier"));
        assert_eq!(timers.cancel(first), Some("first"));
        assert_eq!(timers.cancel(first), None, "a stale key finds nothing");
        assert_eq!(timers.pop_due(now).map(|(_, v)| v), Some("second"));
        assert!(timers.is_empty());
    }
}
