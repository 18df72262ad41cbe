//! Running a test binary that may never finish: in a process group of its
//! own, with a time limit, its output in a file.
//!
//! A test of async code that lost a wake-up does not fail, it waits for
//! ever; so does a learner's `loop {}`. Whoever runs such tests (the known
//! mistakes' check, the grading of a class) must stop them after a while,
//! and stop them *whole*: `cargo test --doc` runs each example in a
//! process of its own, and a test may spawn children, which killing the
//! first process alone would leave running. So the command starts a
//! process group, and the whole group is killed at the limit.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// Runs `command` in `dir`, its stdout and stderr both into the file
/// `log`, for at most `limit`; its exit status, or `None` if it was
/// killed at the limit (with every process of its group).
///
/// ```
/// use std::process::Command;
/// use std::time::Duration;
///
/// let log = std::env::temp_dir().join(format!("limited-doc-{}", std::process::id()));
/// let dir = std::env::temp_dir();
/// let done = xtask::limited::run(Command::new("true"), &dir, &log, Duration::from_secs(5))?;
/// assert!(done.is_some_and(|s| s.success()));
/// let mut sleep = Command::new("sleep");
/// sleep.arg("5");
/// let hung = xtask::limited::run(sleep, &dir, &log, Duration::from_millis(50))?;
/// assert!(hung.is_none(), "killed at the limit");
/// # std::fs::remove_file(&log)?;
/// # anyhow::Ok(())
/// ```
pub fn run(
    mut command: Command,
    dir: &Path,
    log: &Path,
    limit: Duration,
) -> Result<Option<ExitStatus>> {
    let file = std::fs::File::create(log)?;
    let mut child = command
        .process_group(0)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .stdout(file.try_clone()?)
        .stderr(file)
        .spawn()
        .with_context(|| format!("cannot run {command:?}"))?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if started.elapsed() > limit {
            // The negative pid names the group: the child and what it started.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
