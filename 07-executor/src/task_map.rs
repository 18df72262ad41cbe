//! [`TaskMap`]: the executor's tables keyed by task (the tasks, the wakers
//! held per task), with a hasher made for the keys it gets.
//!
//! Not here: what a [`TaskId`] is (`waker.rs`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::waker::TaskId;

/// A map keyed by task: the task table, the wakers held per task.
///
/// `HashMap`'s default hasher, SipHash, is built for keys a peer chooses:
/// it spreads them so that no attacker can pile them into one bucket. Task
/// ids are counted out by the executor itself, so that buys nothing here,
/// and it cost about 530 instructions per item (callgrind; the racing
/// chapter has the profile). [`TaskIdHasher`] costs one multiplication.
pub(crate) type TaskMap<V> = HashMap<TaskId, V, BuildHasherDefault<TaskIdHasher>>;

/// Hashes a task id by multiplying it with 2^64 divided by the golden
/// ratio ("Fibonacci hashing", Knuth's multiplicative method).
///
/// Not the id itself: `HashMap` (hashbrown) picks a bucket with the hash's
/// low bits and keeps its top 7 bits beside each entry to compare 16 at a
/// time, and consecutive small ids all have the same top bits, zero. The
/// multiplication carries every bit of the id into the top ones.
#[derive(Debug, Default)]
pub(crate) struct TaskIdHasher(u64);

impl Hasher for TaskIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = id.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    /// Only `write_u64` is used (a `TaskId` hashes its one `u64`); any
    /// other input is folded in a byte at a time, correct if slow.
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(byte));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::hash::BuildHasher;

    use super::*;

    #[test]
    fn consecutive_task_ids_differ_in_the_top_bits_hashbrown_compares() {
        let build = BuildHasherDefault::<TaskIdHasher>::default();
        let tops: BTreeSet<u64> = (1..=16).map(|n| build.hash_one(TaskId(n)) >> 57).collect();
        // The identity would give one value (0) for all sixteen.
        assert!(tops.len() >= 12, "top 7 bits of 16 ids: {tops:?}");
    }

    #[test]
    fn a_task_map_finds_what_it_holds() {
        let mut map = TaskMap::default();
        for n in 1..=1000 {
            map.insert(TaskId(n), n);
        }
        assert!((1..=1000).all(|n| map.get(&TaskId(n)) == Some(&n)));
        assert_eq!(map.remove(&TaskId(500)), Some(500));
        assert_eq!(map.get(&TaskId(500)), None);
    }
}
