//! The op table: every operation the kernel holds, by place, with what it
//! owns (a buffer, an address, a `timespec`, and the descriptor it works
//! on) until its completion has been read.
//!
//! A place's number and generation travel to the kernel as the 64-bit
//! `user_data` of the submission entry, and come back in the completion:
//! that is how a completion finds what it belongs to.

use std::io;

use io_uring::types;

use super::{Op, SharedFd};

/// One operation in the ring: the place of its entry in the op table and
/// that entry's generation, packed into the 64-bit `user_data` the kernel
/// gives back in the completion. The generation makes a stale id (an
/// operation that completed, its place since reused) name nothing instead
/// of somebody else's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpId(pub(super) u64);

impl OpId {
    pub(super) fn new(index: usize, generation: u32) -> OpId {
        OpId((u64::from(generation) << 32) | index as u64)
    }

    fn index(self) -> usize {
        (self.0 & u64::from(u32::MAX)) as usize
    }

    fn generation(self) -> u32 {
        (self.0 >> 32) as u32
    }
}

/// What a place in the op table holds.
#[derive(Debug)]
pub(super) enum Entry {
    /// An operation of a caller (`owner` is its lane).
    Io {
        op: Op,
        owner: usize,
        /// The descriptor the operation works on. The kernel knows it only
        /// by its number, so the number must name this socket, and no other,
        /// until the completion: holding a share of it here keeps it open.
        _fd: SharedFd,
        /// Its linked timeout, while that is still in the table.
        timer: Option<OpId>,
        /// Set when the kernel has answered and the answer waits for the
        /// linked timeout's, which says why the operation was cancelled.
        answered: Option<io::Result<usize>>,
        /// What the linked timeout said: it fired, or it was refused.
        timer_said: Option<TimerSaid>,
    },
    /// A linked timeout: the kernel copies the `timespec` when it takes the
    /// entry, but it stays here, owned, until its completion all the same,
    /// so that no reader has to know that detail to see it is sound.
    Timeout {
        /// Never read here: the kernel reads it.
        _spec: Box<types::Timespec>,
        /// The operation it bounds.
        target: OpId,
    },
    /// A cancel request: it owns nothing, but it completes like any entry.
    Cancel,
}

/// What a linked timeout's own completion said of its operation.
#[derive(Debug)]
pub(super) enum TimerSaid {
    /// `ETIME`: it fired, and cancelled the operation.
    Fired,
    /// It did not fire (`ECANCELED`, or its operation finished first).
    Quiet,
    /// The kernel refused the timeout itself (`EINVAL`, ...): its
    /// operation was cancelled with it, and no time limit was ever running.
    Refused(io::Error),
}

/// The table: places by index, each with its generation; `None` is free.
#[derive(Debug, Default)]
pub(super) struct Table {
    places: Vec<(u32, Option<Entry>)>,
    free: Vec<usize>,
    /// Places in use: when zero, the kernel holds nothing of ours.
    live: usize,
}

impl Table {
    pub(super) fn live(&self) -> usize {
        self.live
    }

    pub(super) fn insert(&mut self, entry: Entry) -> OpId {
        self.live += 1;
        match self.free.pop() {
            Some(index) => {
                let place = &mut self.places[index];
                place.0 = place.0.wrapping_add(1);
                place.1 = Some(entry);
                OpId::new(index, place.0)
            }
            None => {
                self.places.push((0, Some(entry)));
                OpId::new(self.places.len() - 1, 0)
            }
        }
    }

    /// The entry of `id`, while it is in the table.
    pub(super) fn get_mut(&mut self, id: OpId) -> Option<&mut Entry> {
        let place = self.places.get_mut(id.index())?;
        if place.0 != id.generation() {
            return None;
        }
        place.1.as_mut()
    }

    pub(super) fn remove(&mut self, id: OpId) -> Entry {
        let place = &mut self.places[id.index()];
        assert_eq!(
            place.0,
            id.generation(),
            "a completion for a stale operation"
        );
        let entry = place.1.take().expect("one completion per operation");
        self.free.push(id.index());
        self.live -= 1;
        entry
    }

    /// The callers' operations still in the table.
    pub(super) fn io_ids(&self) -> Vec<OpId> {
        (self.places.iter().enumerate())
            .filter(|(_, (_, entry))| matches!(entry, Some(Entry::Io { .. })))
            .map(|(index, (generation, _))| OpId::new(index, *generation))
            .collect()
    }

    /// Gives up every place without freeing what it owns: for a ring whose
    /// kernel side may still use it (see `Ring`'s `Drop`). The buffers
    /// stay allocated and the descriptors open, for ever: a leak, never a
    /// write into freed memory or an operation on a reused descriptor.
    pub(super) fn leak(&mut self) {
        std::mem::forget(std::mem::take(&mut self.places));
        self.free.clear();
        self.live = 0;
    }
}
