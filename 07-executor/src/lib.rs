//! Stage 7: futures. Chapter 1's request as an `async fn`, on an executor
//! built from the standard library.
//!
//! Stage 6 ran the blocking request unchanged by giving each request a
//! stack of its own. Rust's own answer is the other one: the compiler turns
//! an `async fn` into a state machine (a *future*), and an *executor*
//! polls it; when the future cannot go on, it returns `Pending`, after
//! giving a *waker* to whatever it waits for, and a *reactor* calls that
//! waker when the socket is ready. Nothing here comes from the `futures`
//! crate or tokio: the executor, the reactor, the timers and the
//! primitives are this crate, on the standard library's `Future`, `Waker`
//! and `Wake`, stage 4's selector and stage 6's timer heap.
//!
//! # Layout
//!
//! Read in the order of chapter 8, which builds this crate up in steps;
//! the first three are examples, before any of the crate:
//!
//! - `examples/step1_countdown.rs`: a future by hand, and the contract of
//!   `poll`; `step2_busy_poll.rs` and `step3_park.rs`: a `block_on` that
//!   polls without rest, then one that sleeps until the waker calls;
//! - step 4, many tasks: [`Executor`] (`executor.rs`), the loop and
//!   `block_on`; [`Handle`] (`handle.rs`), spawning a task and one poll of
//!   it; `task.rs`, what a task holds, in the table of `task_map.rs`;
//!   `waker.rs`, the wakers and the ready queue they push to;
//!   `reactor.rs`, stage 4's [`Selector`](select::Selector) (epoll) with
//!   one waker per socket and direction; [`AsyncConn`] (`conn.rs`), a
//!   connection whose `send` and `recv` are futures;
//! - step 5, an `async fn`: `request.rs`, [`exchange`], 01-sync's request
//!   with `.await`s (and, at the end of this page, why `poll` takes a pin);
//! - step 6, cancellation: [`request`] and the [`InFlight`] guard
//!   (`conn.rs`) that poisons a connection when a request is dropped
//!   half-way;
//! - step 7, structured concurrency: [`TaskSet`] (`task_set.rs`), tasks
//!   that end with their owner, and [`JoinHandle`] (`join.rs`);
//!   `cancel.rs`, how a task is cancelled: its future dropped under
//!   `catch_unwind`, since destructors can panic too;
//! - then the parts the steps pass over: `notify.rs`, the self-pipe that
//!   lets another thread interrupt the loop's `epoll_wait` (why wakers are
//!   `Send + Sync` is in `waker.rs`); `schedule.rs`, the `scheduled` flag
//!   and the ready queue other threads touch, with the orderings that make
//!   a wake never lost, model-checked with loom (`sync.rs` picks std's or
//!   loom's types); `order.rs`, the order a batch of woken tasks is polled
//!   in, FIFO or drawn from a seed ([`Executor::with_seed`]); `time.rs`, [`Sleep`] and
//!   [`Handle::timeout`] on stage 6's timer heap; `poll_state.rs` and
//!   `stuck.rs`, how the loop knows that nothing can wake the tasks left
//!   ([`Stuck`]); [`Semaphore`] (`semaphore.rs`), FIFO, for `--conns`;
//!   [`Stats`] (`stats.rs`); `lints.rs`, what the loop notices going
//!   wrong as it runs ([`Lint`]: a poll that holds the thread, a task that
//!   spins, a futurelock...), and `record.rs`, its record of every wake and
//!   poll for the run's page; and `stage.rs`, [`Futures`], the stage.
//!
//! # Implementation
//!
//! No globals and no `unsafe`. Futures reach their executor through a
//! [`Handle`] they are given (a `Rc`, so it stays on its thread), the way
//! stage 6's fibers hold a `Scheduler`; tokio and async-io find theirs in
//! a thread-local or a static instead. The one part built for threads is
//! what a `Waker` holds: a task number and an `Arc` of the ready queue,
//! because a waker may be sent anywhere (`waker.rs` explains).
//!
//! Tasks hold handles and the executor holds the tasks, so the two keep
//! each other alive; dropping the [`Executor`] drops every task left in it
//! (their destructors run, which is how a task is cancelled) and breaks
//! the cycle.
//!
//! # Why `poll` takes `Pin<&mut Self>`
//!
//! The future of an `async fn` keeps its locals, and a local that borrows
//! another local across an `.await` points into the future itself: moved
//! after its first poll, it would point at where it used to be. So `poll`
//! takes the future *pinned*, a promise that it will not move again, and
//! only a type that is `Unpin` (safe to move: no pointer into itself) can
//! be pinned by `Pin::new` as if it were a plain `&mut`. The compiler makes
//! every `async fn`'s future `!Unpin`, and refuses this (error E0277,
//! "cannot be unpinned"):
//!
//! ```compile_fail,E0277
#![doc = include_str!("../tests/compile_fail/unpinned_poll.rs")]
//! ```
//!
//! Pinned where it stands, with `std::pin::pin!`, it compiles: the future
//! can no longer be moved, since the pinned reference is all that is left
//! of it.
//!
//! ```
//! use std::future::Future;
//! use std::pin::pin;
//! use std::task::{Context, Poll, Waker};
//!
//! async fn sum_after_a_yield() -> u32 {
//!     let numbers = [1, 2, 3];
//!     let first = &numbers[0];
//!     std::future::ready(()).await;
//!     *first + numbers[2]
//! }
//!
//! let mut future = pin!(sum_after_a_yield());
//! let mut cx = Context::from_waker(Waker::noop());
//! assert_eq!(future.as_mut().poll(&mut cx), Poll::Ready(4));
//! ```

#![forbid(unsafe_code)]

mod blocking;
mod cancel;
mod conn;
mod executor;
mod handle;
mod hook;
mod join;
pub mod lints;
mod notify;
mod observe;
mod order;
mod permits;
mod poll_state;
mod reactor;
mod record;
mod request;
mod schedule;
mod semaphore;
mod stage;
mod stats;
mod stuck;
mod sync;
mod task;
mod task_map;
mod task_set;
mod time;
mod waker;

pub use blocking::{BLOCKING_THREADS, BlockingError, BlockingHandle};
pub use conn::{AsyncConn, InFlight, RecvReply, SendRequest};
pub use executor::{Executor, RunError};
pub use handle::Handle;
pub use hook::{Hook, HookFuture, ItemHook};
pub use join::{JoinError, JoinHandle, TaskPanic};
pub use lints::{Lint, Spawned};
pub use request::{exchange, request};
pub use semaphore::{Acquire, Permit, Semaphore};
pub use stage::Futures;
pub use stats::Stats;
pub use stuck::Stuck;
pub use task_set::TaskSet;
pub use time::{Elapsed, Sleep};
pub use waker::TaskId;
