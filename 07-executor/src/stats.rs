//! [`Stats`]: what an executor counts as it runs, for the report and
//! the curious.

/// Counters of an executor, for the report and the curious.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tasks spawned.
    pub spawned: u64,
    /// The most tasks alive at once (the root not counted).
    pub peak_tasks: usize,
    /// Polls of a task or of the root future.
    pub polls: u64,
    /// Polls that found nothing to do: the task had been woken, but no
    /// byte moved, no timer fired, no permit or result came (a readiness
    /// hint that was not).
    pub idle_polls: u64,
    /// Calls to `wake`, from any thread.
    pub wakes: u64,
    /// Wakes of a task that was already queued: one poll served them.
    pub wakes_coalesced: u64,
    /// Wakes that found the loop asleep and interrupted its `epoll_wait`
    /// through the self-pipe (they came from another thread).
    pub interrupts: u64,
    /// Calls to `epoll_wait`.
    pub waits: u64,
    /// Timers that fired.
    pub timers_fired: u64,
    /// Tasks that panicked.
    pub panics: u64,
}
