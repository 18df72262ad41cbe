//! A deliberately broken runtime: a small one-thread runtime of futures
//! that passes every scenario, with fault switches that each break one
//! thing real runtimes get wrong. The suite must catch every fault: a
//! scenario that no fault can fail tests nothing.
//!
//! `core.rs` is the loop and the tasks, `time.rs` the timers, `io.rs` the
//! reactor and the reader, `sync.rs` the join state and the semaphore,
//! `rt.rs` the adapter the suite's interpreter runs on.

mod core;
mod io;
mod rt;
mod sync;
mod time;

pub use rt::Broken;

/// One thing to get wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A task's "queued" flag is cleared after its poll instead of before:
    /// a wake during the poll is lost.
    LostWake,
    /// Timers fire at the loop's next turn, before their deadline.
    EarlyTimer,
    /// A sleep whose deadline has passed is ready at its first poll: a
    /// zero sleep never yields.
    ZeroSleepReady,
    /// A dropped sleep stays in the timer heap, and wakes its task.
    DroppedSleepFires,
    /// The reactor keeps a waker only for a socket's first park.
    NoReregister,
    /// The reactor does not wake a reader when the peer hangs up.
    IgnoreHangUp,
    /// A socket is registered for writing only.
    WrongInterest,
    /// A socket whose descriptor number was seen before is taken as
    /// registered already.
    ForgetReusedFd,
    /// A read that finds two lines keeps the first and drops the rest.
    DropsBufferedLines,
    /// The end of the stream wins over complete lines still buffered.
    EofBeforeData,
    /// A reset is reported as a clean end of stream.
    ResetIsEof,
    /// A finished task stays in the table and a stale wake polls it again.
    PollFinished,
    /// The ready queue is drained before timers and I/O, and a yield
    /// queues the task again at once.
    NoFairness,
    /// A yield queues the task again at once, before the loop has looked
    /// at I/O.
    YieldNoDefer,
    /// The ready queue is last in, first out.
    LifoReady,
    /// A spawned task is never queued for its first poll.
    SpawnNotScheduled,
    /// A spawned task is polled at once, inside `spawn`.
    SpawnRunsInline,
    /// A join that starts after its task finished waits for ever.
    JoinMissesEarlyResult,
    /// Abort does nothing.
    AbortIgnored,
    /// Abort of a finished task turns its result into "cancelled".
    AbortClobbersResult,
    /// Dropping a join handle cancels its task.
    DetachCancels,
    /// A task's panic is not caught: it takes the loop down.
    PanicEscapes,
    /// Dropping the runtime leaks its pending tasks: no destructor runs.
    LeakOnDrop,
    /// The semaphore hands over last in, first out.
    LifoSemaphore,
    /// A release hands the permit over but does not wake the waiter.
    ReleaseNoWake,
    /// A waiter that is cancelled keeps its place in the queue, and the
    /// permit handed to it is lost.
    CancelledWaiterKeepsTurn,
}
