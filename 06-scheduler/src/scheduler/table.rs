//! The fiber table: every live fiber of a scheduler, by [`FiberId`].
//!
//! A fiber's slot is reused once it finishes, with a new *generation*, so
//! that an old id (held by a ticket, a join handle, a log line) can never
//! name the fiber that took its place: looking it up finds nothing.
//!
//! Not here: what a fiber waits for (`wait.rs`) or how it runs
//! (`switch.rs`).

use std::fmt;

use super::switch::Fiber;
use super::wait::{Resume, Wait};

/// Names one fiber of one scheduler. Ids are reused once a fiber has
/// finished, with a new generation, so an old id never names a new fiber.
///
/// Opaque on purpose: its number is a slot in the scheduler's table, and
/// only its [`Display`](fmt::Display) ("fiber 3.0") is meant for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FiberId {
    index: u32,
    generation: u32,
}

impl fmt::Display for FiberId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fiber {}.{}", self.index, self.generation)
    }
}

/// What the scheduler knows about one live fiber.
pub(super) struct FiberState {
    /// `None` while the fiber runs: its coroutine is out, being resumed.
    pub(super) coroutine: Option<Fiber>,
    /// The number of the fiber's current (or next) wait, for tickets.
    pub(super) wait_no: u64,
    /// The wait in progress, if the fiber is waiting.
    pub(super) wait: Option<Wait>,
    /// What to tell the fiber when it is next resumed.
    pub(super) resume: Resume,
}

/// A slot of the table: its current generation, and its fiber if alive.
#[derive(Default)]
struct Slot {
    generation: u32,
    fiber: Option<FiberState>,
}

/// Live fibers by id, with the free slots kept for reuse.
#[derive(Default)]
pub(super) struct FiberTable {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
}

impl FiberTable {
    pub(super) fn new() -> FiberTable {
        FiberTable::default()
    }

    /// Adds a new fiber, ready to run from its start.
    pub(super) fn insert(&mut self, coroutine: Fiber) -> FiberId {
        let fiber = FiberState {
            coroutine: Some(coroutine),
            wait_no: 0,
            wait: None,
            resume: Resume::Ready,
        };
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push(Slot::default());
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 fibers at once")
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.fiber = Some(fiber);
        self.live += 1;
        FiberId {
            index,
            generation: slot.generation,
        }
    }

    /// Removes a finished fiber; its id will not name anything again.
    pub(super) fn remove(&mut self, id: FiberId) {
        let slot = &mut self.slots[id.index as usize];
        debug_assert_eq!(slot.generation, id.generation, "removing a stale id");
        slot.fiber = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.live -= 1;
    }

    /// The fiber `id` names, if it is still alive.
    pub(super) fn get(&self, id: FiberId) -> Option<&FiberState> {
        let slot = self.slots.get(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.fiber.as_ref()
    }

    /// The fiber `id` names, if it is still alive, mutably.
    pub(super) fn get_mut(&mut self, id: FiberId) -> Option<&mut FiberState> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.fiber.as_mut()
    }

    /// A fiber known to be alive (the running one, say).
    pub(super) fn fiber_mut(&mut self, id: FiberId) -> &mut FiberState {
        self.get_mut(id).expect("the fiber is alive")
    }

    /// How many fibers are alive.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// Every live fiber, with its id, in slot order.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (FiberId, &mut FiberState)> {
        self.slots
            .iter_mut()
            .enumerate()
            .filter_map(|(index, slot)| {
                let id = FiberId {
                    index: index as u32,
                    generation: slot.generation,
                };
                Some((id, slot.fiber.as_mut()?))
            })
    }

    /// Every live fiber, with its id, in slot order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (FiberId, &FiberState)> {
        self.slots.iter().enumerate().filter_map(|(index, slot)| {
            let id = FiberId {
                index: index as u32,
                generation: slot.generation,
            };
            Some((id, slot.fiber.as_ref()?))
        })
    }
}
