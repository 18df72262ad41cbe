//! Stage 6: fibers. Blocking-looking code, running concurrently.
//!
//! Stages 3 to 5 made one process serve many connections by turning each
//! request inside out: a chain of phases, each a callback that returns the
//! next, driven by an event loop. It works, and nobody would write stage 1's
//! six-line request that way by choice. This stage gets the concurrency
//! *and* stage 1's code back: every item runs in a fiber, a function with
//! its own small stack that the scheduler can suspend in the middle of a
//! `read` and resume when the reply comes. The request function is
//! 01-sync's, unchanged; the stream under it is the only new thing.
//!
//! The source article is a Russian one that writes a Ruby fiber scheduler (the
//! `Fiber::Scheduler` interface of Ruby 3): `io_wait`, `block`/`unblock`,
//! `kernel_sleep`, timers on a binary heap, and a loop in `close`. Then a
//! second article (Twisted) on the race that single-threaded asynchronous
//! code *still* has, and the lock that cures it.
//!
//! # Layout
//!
//! Read the core first; it imports nothing built on it.
//!
//! - [`Scheduler`] (`scheduler.rs`): the core. Fibers, the ready queue,
//!   `yield_now`, `sleep`, and the loop, [`run`], with its parts in
//!   `scheduler/`: the fiber table, waits and [`WakeTicket`]s
//!   (`block`/`unblock`), the stack switch, the inbox for other threads,
//!   deadlock detection, and what a run reports ([`Summary`]).
//! - Under the core, and knowing nothing of fibers: `heap.rs`, the timers,
//!   a binary heap with O(log n) removal; `stacks.rs`, fiber stacks, small
//!   and pooled; `reactor.rs`, the `epoll` instance the loop sleeps in and
//!   its table of sockets.
//! - On the core:
//!   - `io.rs`: [`Registered`] sockets and [`Scheduler::io_wait`], the
//!     reactor joined to the core;
//!   - `join.rs`: [`Scheduler::spawn`] and [`JoinHandle`], a fiber's
//!     result or panic;
//!   - `remote.rs`: other threads, [`Remote`] unblocks, `spawn_blocking`;
//!   - `stream.rs`: [`FiberTcpStream`], `Read` + `Write` by way of
//!     `io_wait`;
//!   - the primitives: [`Notification`], [`Semaphore`], [`Mutex`],
//!     [`TaskLimiter`], [`KeyedLocks`], each in its own file, each built
//!     on the one before;
//!   - `race.rs`: the Twisted article's lost update, and its fix;
//!   - `stage.rs`: [`Fibers`], the stage: a fiber per item, `--conns` at
//!     once, running 01-sync's request.
//!
//! # Implementation
//!
//! corosensei switches stacks and nothing else; it hands a fiber's body a
//! `&Yielder`, the one thing that can switch *out* of that fiber, and only
//! the body has it. But a fiber must be able to suspend from deep inside
//! code that knows nothing about fibers: `sync::request` calls
//! `Conn::recv`, which calls `LineFramer::read_line`, which calls
//! `FiberTcpStream::read`, and `std::io::Read::read` has no parameter to
//! pass a yielder (or a scheduler) through. Ruby has the same problem and
//! answers it with globals (`Fiber.current`, `Fiber.scheduler`).
//!
//! We keep the scheduler explicit: a [`FiberTcpStream`] holds the
//! [`Scheduler`] it was connected with, and every primitive is made from a
//! `&Scheduler`. What cannot be passed is the yielder, so the scheduler
//! keeps the *running* fiber's yielder as a raw pointer, stored by the
//! fiber's body when it starts and every time it is resumed, cleared by the
//! loop every time the fiber switches out. Dereferencing it is the one
//! `unsafe` operation of this crate (`scheduler/switch.rs`: `YielderSlot`
//! states the invariant that makes it sound, and its `unsafe fn store`
//! the contract that keeps it). For that invariant to hold,
//! two schedulers must never be running on one thread at once (a fiber of
//! one would switch out through the other's yielder), and that is the one
//! thread-local: `run` marks the thread as running a scheduler and refuses
//! to nest ([`RunError::Nested`]).
//!
//! Fibers hold handles to their scheduler, and the scheduler holds the
//! fibers, so the two keep each other alive until the fibers finish. `run`
//! returns only when none is left, or after unwinding the stuck ones on a
//! deadlock; a scheduler whose fibers were spawned and never run is leaked.
//!
//! [`run`]: Scheduler::run

#![deny(unsafe_code)]

mod heap;
mod io;
mod join;
mod keyed;
mod limiter;
mod mutex;
mod notification;
pub mod race;
mod reactor;
mod remote;
mod scheduler;
mod semaphore;
mod stacks;
mod stage;
mod stream;

pub use io::Registered;
pub use join::{FiberError, JoinHandle};
pub use keyed::{KeyGuard, KeyedLocks};
pub use limiter::TaskLimiter;
pub use mutex::{Mutex, MutexGuard};
pub use notification::Notification;
pub use reactor::Direction;
pub use remote::Remote;
pub use scheduler::{
    Deadlock, FiberId, FiberPanic, LongResume, RunError, Scheduler, Stats, Summary, WakeTicket,
    Woken,
};
pub use semaphore::{Permit, Semaphore};
pub use stacks::DEFAULT_STACK_SIZE;
// The timer heap is the scheduler's, but stage 7's executor keeps its
// deadlines in it too: one heap for fibers and futures.
pub use heap::{TimerHeap, TimerId};
pub use stage::Fibers;
pub use stream::FiberTcpStream;
