//! [`TaskLimiter`]: spawn fibers, at most N running at once. This is how
//! `--conns` applies in this stage.
//!
//! The source article's limiter counts running fibers and, at the limit, waits on a
//! `Notification` that each fiber's `ensure` block signals. Ours is a
//! [`Semaphore`] of N permits: `spawn` takes a permit (waiting in line at
//! the limit) and *moves it into the new fiber*, which gives it back when it
//! ends, however it ends; a panic unwinds through the permit's drop too.
//!
//! Not here: what the fibers do.

use std::fmt;
use std::io;

use crate::join::JoinHandle;
use crate::scheduler::Scheduler;
use crate::semaphore::Semaphore;

/// Spawns fibers, no more than `limit` alive at once.
pub struct TaskLimiter {
    sched: Scheduler,
    slots: Semaphore,
    limit: usize,
}

impl TaskLimiter {
    /// A limiter of `limit` fibers on `sched`.
    ///
    /// # Panics
    ///
    /// If `limit` is 0: nothing could ever run.
    pub fn new(sched: &Scheduler, limit: usize) -> TaskLimiter {
        assert!(limit > 0, "a TaskLimiter of 0 fibers would never run one");
        TaskLimiter {
            sched: sched.clone(),
            slots: Semaphore::named(sched, limit, "a task limiter slot"),
            limit,
        }
    }

    // ANCHOR: limiter
    /// Spawns `f` as a fiber once fewer than `limit` of this limiter's
    /// fibers are alive, suspending the caller until then.
    ///
    /// # Errors
    ///
    /// As [`Scheduler::spawn`].
    ///
    /// # Panics
    ///
    /// Outside a fiber, when it would have to wait.
    pub fn spawn<T: 'static>(&self, f: impl FnOnce() -> T + 'static) -> io::Result<JoinHandle<T>> {
        let permit = self.slots.acquire();
        self.sched.spawn(move || {
            // Dropped when `f` returns or unwinds: the slot frees either way.
            let _permit = permit;
            f()
        })
    }
    // ANCHOR_END: limiter

    /// How many of this limiter's fibers are alive.
    pub fn running(&self) -> usize {
        self.limit - self.slots.available()
    }

    /// The limit.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

impl fmt::Debug for TaskLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskLimiter")
            .field("limit", &self.limit)
            .field("running", &self.running())
            .finish()
    }
}
