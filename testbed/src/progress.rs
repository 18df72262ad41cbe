//! A count of recorded items, shared by the stage's stores and the stall
//! watchdog ([`crate::watchdog`]), a progress bar on stderr for long runs
//! when stderr is a terminal, and the gate an interrupted run closes so
//! that nothing is recorded after it has said how much was
//! ([`Progress::close`]).
//!
//! Instead of the bar, a [`Screen`] may show the run: the live view of
//! `--watch` ([`crate::watch`]) attaches itself with [`Progress::show_on`],
//! and then takes the watchdog's lines and the end of the run from here,
//! as the bar does.
//!
//! The bar is shown only on a terminal, so `--json` output, pipes and test
//! logs stay clean. No background thread ticks it (indicatif redraws from
//! [`Progress::inc`] itself, at most a few times a second): a stage that
//! forks must not have a thread holding stderr's lock at fork time. The
//! count is kept either way.

use std::fmt;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::outcome::Outcome;

/// Something other than the bar that shows the run while it goes on.
pub trait Screen: Send + Sync + fmt::Debug {
    /// A line for the person watching (the watchdog's word on a stall).
    fn say(&self, line: &str);
    /// The run is over, or is being stopped: give the terminal back, so
    /// that what is printed next lands on a clean one.
    fn finish(&self);
}

/// A handle that counts finished items. Cloning it shares the same count
/// and the same bar.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    bar: Option<ProgressBar>,
    recorded: Arc<AtomicU64>,
    /// How many of them failed.
    failed: Arc<AtomicU64>,
    /// The live view, once one attaches (shared by every clone).
    screen: Arc<OnceLock<Arc<dyn Screen>>>,
    /// Held shared by each store while it records; taken for good by
    /// [`Progress::close`].
    gate: Arc<RwLock<()>>,
}

impl Progress {
    /// A progress handle that draws nothing (and still counts).
    pub fn hidden() -> Progress {
        Progress::default()
    }

    /// A bar for `total` items labelled `label`, if stderr is a terminal.
    pub fn for_terminal(label: &str, total: u64) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style =
            ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} items, {per_sec}")
                .expect("the template is a constant and valid")
                .progress_chars("=> ");
        bar.set_style(style);
        bar.set_prefix(label.to_owned());
        Progress {
            bar: Some(bar),
            ..Progress::default()
        }
    }

    /// One more item finished, with `outcome`.
    pub fn inc(&self, outcome: &Outcome) {
        // Counts read by the watchdog and the live view, which need no
        // order between them: a view a tick behind is still right.
        if outcome.is_err() {
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
        self.recorded.fetch_add(1, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// How many items have finished, through stores of this process.
    pub fn recorded(&self) -> u64 {
        self.recorded.load(Ordering::Relaxed)
    }

    /// How many of the finished items failed.
    pub fn failed(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Shows the run on `screen` from now on: the watchdog's lines go to
    /// it, and [`Progress::finish`] finishes it. A second screen is
    /// refused (and handed back).
    pub fn show_on(&self, screen: Arc<dyn Screen>) -> Result<(), Arc<dyn Screen>> {
        self.screen.set(screen)
    }

    /// Held by a store for the time of one recording (see [`close`]).
    ///
    /// [`close`]: Progress::close
    pub fn admit(&self) -> RwLockReadGuard<'_, ()> {
        // The lock guards no data, so a panic while it was held left
        // nothing inconsistent behind it.
        self.gate.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stops every store of this run from recording: waits for the
    /// recordings under way to commit, then keeps the gate shut for the
    /// rest of the process's life (a store that tries again waits
    /// forever). For an interrupted run, which counts its rows next and
    /// exits: the count it prints is then the count in the database.
    pub fn close(&self) {
        let shut = self.gate.write().unwrap_or_else(PoisonError::into_inner);
        std::mem::forget(shut);
    }

    /// Prints `line` on stderr without tearing the bar.
    pub fn say(&self, line: &str) {
        if let Some(screen) = self.screen.get() {
            return screen.say(line);
        }
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// Removes the bar, or finishes the screen, so the report prints on a
    /// clean line.
    pub fn finish(&self) {
        if let Some(screen) = self.screen.get() {
            screen.finish();
        }
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
