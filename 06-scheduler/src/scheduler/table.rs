//! The fiber table: every live fiber of a scheduler, by [`FiberId`].
//!
//! A fiber's slot is reused once it finishes, with a new *generation*, so
//! that an old id (held by a ticket, a join handle, a log line) can never
//! name the fiber that took its place: looking it up finds nothing.
//!
//! The table is generic over what it keeps per fiber, so this file needs
//! nothing else of the scheduler.
//!
//! Not here: what the scheduler keeps per fiber (`FiberState`, in
//! `scheduler.rs`), what a fiber waits for (`wait.rs`), how it runs
//! (`switch.rs`).

use std::fmt;

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

/// A slot of the table: its current generation, and its fiber if alive.
struct Slot<T> {
    generation: u32,
    fiber: Option<T>,
}

/// Live fibers by id (a `T` each), with the free slots kept for reuse.
pub(super) struct FiberTable<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
}

impl<T> FiberTable<T> {
    pub(super) fn new() -> FiberTable<T> {
        FiberTable {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }

    /// Adds a new fiber.
    pub(super) fn insert(&mut self, fiber: T) -> FiberId {
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    fiber: None,
                });
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
    pub(super) fn get(&self, id: FiberId) -> Option<&T> {
        let slot = self.slots.get(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.fiber.as_ref()
    }

    /// The fiber `id` names, if it is still alive, mutably.
    pub(super) fn get_mut(&mut self, id: FiberId) -> Option<&mut T> {
        let slot = self.slots.get_mut(id.index as usize)?;
        if slot.generation != id.generation {
            return None;
        }
        slot.fiber.as_mut()
    }

    /// A fiber known to be alive (the running one, say).
    pub(super) fn fiber_mut(&mut self, id: FiberId) -> &mut T {
        self.get_mut(id).expect("the fiber is alive")
    }

    /// How many fibers are alive.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    /// Every live fiber, with its id, in slot order.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = (FiberId, &mut T)> {
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
    pub(super) fn iter(&self) -> impl Iterator<Item = (FiberId, &T)> {
        self.slots.iter().enumerate().filter_map(|(index, slot)| {
            let id = FiberId {
                index: index as u32,
                generation: slot.generation,
            };
            Some((id, slot.fiber.as_ref()?))
        })
    }
}
