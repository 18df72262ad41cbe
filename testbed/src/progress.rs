//! A progress bar on stderr for long runs, and nothing at all otherwise.
//!
//! Shown only when stderr is a terminal, so `--json` output, pipes and test
//! logs stay clean. No background thread ticks it (indicatif redraws from
//! [`Progress::inc`] itself, at most a few times a second): a stage that
//! forks must not have a thread holding stderr's lock at fork time.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A handle that counts finished items. Cloning it shares the same bar.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A progress handle that draws nothing.
    pub fn hidden() -> Progress {
        Progress { bar: None }
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
        Progress { bar: Some(bar) }
    }

    /// One more item finished.
    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Removes the bar, so the report prints on a clean line.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
