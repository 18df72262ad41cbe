//! A scenario's script: the steps a task takes, written once and run by
//! every runtime's interpreter with that runtime's own primitives (an
//! `.await` on futures, a blocking call on fibers).

/// One step of a task's script.
#[derive(Debug, Clone)]
pub enum Step {
    /// Records an event in the trace.
    Log(&'static str),
    /// Sleeps this many milliseconds.
    Sleep(u64),
    /// Lets the other ready tasks run once.
    Yield,
    /// Starts a task with its own script; its handle is kept under its name.
    Spawn(&'static str, Vec<Step>),
    /// Starts a task and drops its handle at once: the task runs on.
    Detach(Vec<Step>),
    /// Waits for the named task; records `<name> ok`, `<name> panicked`
    /// or `<name> cancelled`.
    Join(&'static str),
    /// Cancels the named task.
    Abort(&'static str),
    /// The task cancels itself through its own handle, then yields: the
    /// steps after this one must never run.
    AbortSelf(&'static str),
    /// Panics.
    Panic,
    /// Waits once: another thread wakes the task `times` times *during*
    /// the poll (or, on fibers, before the fiber has switched out).
    WakeFromThread(u32),
    /// Keeps the task's waker where a later `WakeStored` finds it.
    StoreWaker,
    /// Another thread wakes the stored waker (its task has finished).
    WakeStored,
    /// A waker cloned, sent to another thread, cloned there, both clones
    /// dropped there, after one wake through them.
    CloneWakerOnThread,
    /// Starts a sleep of this many milliseconds, lets it register, and
    /// drops it.
    DropSleep(u64),
    /// Waits for nothing, forever; every later poll records `spurious poll`.
    Park,
    /// Keeps a value until the task ends; its destructor records
    /// `<name> dropped`.
    Guard(&'static str),
    /// Starts this many tasks, each with one timer, deadlines 0 to 9 ms
    /// after one base instant in a shuffled order; when all have fired,
    /// records `timers fired in order, none early`, or what went wrong.
    /// Where tasks run in parallel or in a seeded order, the order of two
    /// tasks' wake-ups says nothing about the timers, and only "none
    /// early" is checked.
    Timers(usize),
    /// One of `Timers`' tasks: sleeps until the base instant plus this
    /// many milliseconds, and records when it woke.
    TimerAt(u64),
    /// Reads one line from the connection: records `got <line>`, `eof` or
    /// `reset`.
    Read,
    /// The peer writes these bytes (without waiting).
    PeerWrite(&'static str),
    /// The peer closes its end.
    PeerClose,
    /// The peer resets its end (`SO_LINGER` 0, then close).
    PeerReset,
    /// Closes the connection and opens a new one, whose descriptor is
    /// likely the number just freed.
    Reconnect,
    /// Takes the scenario's one-permit semaphore.
    Acquire,
    /// Gives the permit back.
    Release,
    /// Takes the scenario's lock.
    Lock,
    /// Gives the lock back.
    Unlock,
    /// Yields until this many tasks have queued on the semaphore or lock
    /// (or passed a `Mark`).
    WaitQueued(usize),
    /// Counts as one more for `WaitQueued`: this task got this far.
    Mark,
    /// Yields in a loop until a `Stop`.
    SpinUntilStop,
    /// Ends every `SpinUntilStop`.
    Stop,
}

/// The name of a runtime adapter, as the table prints it.
pub type RuntimeName = &'static str;

/// One behaviour: a script for the root task, and what it must record.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Short, unique, kebab-case.
    pub name: &'static str,
    /// Time, wake-ups, I/O, tasks, fairness or primitives.
    pub group: &'static str,
    /// The root task's steps.
    pub steps: Vec<Step>,
    /// The trace every runtime must record.
    pub expect: Vec<crate::Expect>,
    /// Runtimes that legitimately cannot run this script, with why.
    pub differs: Vec<(RuntimeName, &'static str)>,
}

impl Scenario {
    /// Does any step use the connection?
    pub fn uses_io(&self) -> bool {
        fn any(steps: &[Step]) -> bool {
            steps.iter().any(|s| match s {
                Step::Read
                | Step::PeerWrite(_)
                | Step::PeerClose
                | Step::PeerReset
                | Step::Reconnect => true,
                Step::Spawn(_, inner) | Step::Detach(inner) => any(inner),
                _ => false,
            })
        }
        any(&self.steps)
    }

    /// Why `runtime` cannot run this scenario, if it cannot.
    pub fn differs_on(&self, runtime: &str) -> Option<&'static str> {
        self.differs
            .iter()
            .find(|(name, _)| *name == runtime)
            .map(|(_, why)| *why)
    }
}
