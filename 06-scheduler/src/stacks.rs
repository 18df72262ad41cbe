//! Fiber stacks: small, and reused.
//!
//! A fiber is a function running on its own stack, so that it can stop in
//! the middle (in a `read` deep inside someone else's code) and be resumed
//! later with every local variable still in place. corosensei gives us the
//! switch between stacks; the stacks themselves are ours to manage, and
//! they are the expensive part of a fiber:
//!
//! - each [`DefaultStack`] is an `mmap` (the stack) plus an `mprotect` (a
//!   guard page below it, so an overflow faults instead of scribbling on
//!   the neighbour). That is two memory mappings, and Linux allows
//!   `vm.max_map_count` = 65,530 per process: about 32,000 live stacks, in
//!   theory; 10,000 fibers in practice, with the rest of the process;
//! - creating one costs two system calls, and freeing one a third;
//!
//! so [`StackPool`] keeps the stacks of finished fibers and hands them to
//! new ones. A run of 20,000 items through 100 fibers creates about 100
//! stacks, not 20,000.
//!
//! # How big
//!
//! [`DEFAULT_STACK_SIZE`] is 64 KiB. A fiber of this stage runs 01-sync's
//! request function (a 4 KiB read buffer in the framer, some formatting,
//! a few frames of std) and records the outcome in SQLite: the stage runs
//! with 16 KiB stacks in debug and release builds (`--stack-kib 16`), so 64
//! leaves four times what it needs. Memory is only *reserved* by `mmap`;
//! the kernel backs a page with RAM when it is first touched, so a fiber
//! that uses 12 KiB of its 64 costs 12 KiB. A fiber that needs more than its stack
//! hits the guard page and the whole process dies with SIGSEGV, with no
//! message: there is no way to turn a stack overflow into a panic here.
//! When in doubt, give fibers more stack (`--stack-kib`); it costs address
//! space, not memory.
//!
//! Not here: switching stacks (corosensei), and the guard page (corosensei's
//! `DefaultStack` makes it).

use std::io;

use corosensei::stack::DefaultStack;

// ANCHOR: stack_size
/// The stack of a fiber unless told otherwise: 64 KiB, four times what this
/// stage's fibers were measured to need (see the module docs), and small
/// enough for 10,000 fibers to reserve only 640 MiB of address space.
pub const DEFAULT_STACK_SIZE: usize = 64 * 1024;
// ANCHOR_END: stack_size

/// A free list of fiber stacks of one size.
pub struct StackPool {
    size: usize,
    free: Vec<DefaultStack>,
    created: usize,
}

impl std::fmt::Debug for StackPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StackPool")
            .field("size", &self.size)
            .field("free", &self.free.len())
            .field("created", &self.created)
            .finish()
    }
}

impl StackPool {
    /// An empty pool of stacks of `size` bytes (at least corosensei's
    /// minimum, one page).
    pub fn new(size: usize) -> StackPool {
        StackPool {
            size,
            free: Vec::new(),
            created: 0,
        }
    }

    // ANCHOR: pool
    /// A stack: a reused one if any is free, else a new one.
    ///
    /// # Errors
    ///
    /// The `mmap` or `mprotect` error when a new stack cannot be made (out of
    /// memory, or out of memory mappings: see `vm.max_map_count`).
    pub fn get(&mut self) -> io::Result<DefaultStack> {
        match self.free.pop() {
            Some(stack) => Ok(stack),
            None => {
                let stack = DefaultStack::new(self.size)?;
                self.created += 1;
                Ok(stack)
            }
        }
    }

    /// Returns the stack of a finished fiber for reuse. The pool keeps every
    /// stack it is given: its size is the peak number of live fibers.
    pub fn put(&mut self, stack: DefaultStack) {
        self.free.push(stack);
    }
    // ANCHOR_END: pool

    /// The size of each stack, in bytes.
    pub fn stack_size(&self) -> usize {
        self.size
    }

    /// How many stacks were ever made (the rest of the fibers reused them).
    pub fn created(&self) -> usize {
        self.created
    }
}
