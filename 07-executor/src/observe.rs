//! What the loop saw, for the report and the page: the executor's methods
//! that read its lints (`lints.rs`) and start and read its record of the
//! tasks (`record.rs`).
//!
//! They live here, not beside what they read, so that the lints and the
//! record stay leaves that the loop writes to, and only this file, which
//! nothing imports, sees both the executor and them.

use std::time::{Duration, Instant};

use testbed::stage::RunStats;
use testbed::tasks::TaskTrace;

use crate::executor::Executor;
use crate::handle::Shared;
use crate::lints::{Lint, lines};

impl Executor {
    /// What the loop saw go wrong so far (the module docs list the kinds).
    ///
    /// ```
    /// use std::time::Duration;
    /// use executor::{Executor, Lint};
    ///
    /// let executor = Executor::new()?;
    /// executor.set_conns(1);
    /// let handle = executor.handle();
    /// let nap = |handle: executor::Handle| async move {
    ///     handle.sleep(Duration::from_millis(1)).await;
    /// };
    /// let tasks: Vec<_> = (0..30).map(|_| handle.spawn(nap(handle.clone()))).collect();
    /// executor.block_on(async {
    ///     for task in tasks {
    ///         task.await.unwrap();
    ///     }
    /// })?;
    /// // 30 tasks at once for one connection: more than 4 × 1 + 16.
    /// assert_eq!(executor.lints(), [Lint::ManyTasks { peak: 30, conns: 1 }]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lints(&self) -> Vec<Lint> {
        let shared = &self.handle.shared;
        shared.lints.list(shared.stats.get().peak_tasks)
    }

    /// The lints as the report prints them: one line each, except that
    /// one lint met by many tasks spawned at one place is one line that
    /// counts them (`lints/lines.rs`).
    ///
    /// ```
    /// use std::future::poll_fn;
    /// use std::task::Poll;
    /// use executor::Executor;
    ///
    /// let executor = Executor::new()?;
    /// for _ in 0..30 {
    ///     // Pending, and no waker kept: nothing will ever wake these.
    ///     executor.spawn(poll_fn(|_| Poll::<()>::Pending));
    /// }
    /// let stuck = executor.block_on(poll_fn(|_| Poll::<()>::Pending));
    /// assert!(stuck.is_err(), "nothing can wake the tasks: the run is stuck");
    /// let lines = executor.lint_lines();
    /// assert!(lines.iter().any(|l| l.starts_with("30 tasks spawned at ")), "{lines:?}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lint_lines(&self) -> Vec<String> {
        lines::lines(&self.lints(), &self.handle.shared.lints.met())
    }

    /// A poll that holds the thread this long or longer is a
    /// [`Lint::LongPoll`] ([`LONG_POLL`](crate::lints::LONG_POLL) unless set).
    ///
    /// ```
    /// use std::time::Duration;
    /// use executor::Executor;
    ///
    /// let executor = Executor::new()?;
    /// executor.set_long_poll_threshold(Duration::from_secs(1));
    /// executor.block_on(async { std::thread::sleep(Duration::from_millis(20)) })?;
    /// assert_eq!(executor.lints(), [], "20 ms is under a second");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_long_poll_threshold(&self, threshold: Duration) {
        self.handle.shared.lints.set_threshold(threshold);
    }

    /// The run's `--conns`: more tasks alive at once than
    /// [`many_tasks_limit`](crate::lints::many_tasks_limit) of it is a [`Lint::ManyTasks`] (see
    /// [`Executor::lints`]). Without it, that lint is never given.
    pub fn set_conns(&self, conns: usize) {
        self.handle.shared.lints.set_conns(conns);
    }
}

impl Executor {
    /// Keeps a log of every wake, poll and turn from now on, for the run's
    /// page; [`Executor::task_trace`] reads it.
    ///
    /// ```
    /// use std::time::Instant;
    /// use executor::Executor;
    /// use testbed::tasks::WakeBy;
    ///
    /// let epoch = Instant::now();
    /// let executor = Executor::new()?;
    /// executor.record_tasks();
    /// executor.block_on(executor.spawn(async { 7 }))?;
    /// let trace = executor.task_trace(epoch).expect("recorded");
    /// assert!(trace.wakes.iter().any(|w| w.task == 1 && w.by == WakeBy::Spawn));
    /// assert!(trace.polls.iter().any(|p| p.task == 1 && p.ready && p.cause.is_some()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn record_tasks(&self) {
        self.handle.shared.wakeups.record();
    }

    /// The tasks recorded since [`Executor::record_tasks`], times counted
    /// from `epoch`; `None` if they are not recorded.
    pub fn task_trace(&self, epoch: Instant) -> Option<TaskTrace> {
        let recorder = self.handle.shared.wakeups.recorder()?;
        Some(recorder.log().since(epoch))
    }

    /// Hands what the loop saw to a run's report: its turns, the tasks'
    /// trace if recorded, and the lints ([`Executor::lint_lines`]). A stage
    /// on this executor calls it once its `block_on` is over.
    ///
    /// ```
    /// use std::time::Instant;
    /// use executor::Executor;
    /// use testbed::stage::RunStats;
    ///
    /// let epoch = Instant::now();
    /// let executor = Executor::new()?;
    /// executor.block_on(async {})?;
    /// let mut run = RunStats::new(1);
    /// executor.report_to(&mut run, epoch);
    /// assert!(run.turns().is_some() && run.lints().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn report_to(&self, run: &mut RunStats, epoch: Instant) {
        run.loop_turns(self.turns().since(epoch));
        if let Some(trace) = self.task_trace(epoch) {
            run.task_trace(trace);
        }
        for line in self.lint_lines() {
            run.lint(line);
        }
    }
}

impl Shared {
    /// A turn starts with `ready` tasks queued: recorded, if tasks are.
    pub(crate) fn count_turn(&self, ready: usize) {
        if let Some(recorder) = self.wakeups.recorder() {
            let alive = self.tasks.borrow().len();
            recorder.log().counters(Instant::now(), alive, ready);
        }
    }
}
