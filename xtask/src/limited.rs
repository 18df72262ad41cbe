//! Running a test binary that may never finish: in a process group of its
//! own, with a time limit, its output in a file.
//!
//! A test of async code that lost a wake-up does not fail, it waits for
//! ever; so does a learner's `loop {}`. Whoever runs such tests (the known
//! mistakes' check, the grading of a class) must stop them after a while,
//! and stop them *whole*: `cargo test --doc` runs each example in a
//! process of its own, and a test may spawn children, which killing the
//! first process alone would leave running. So the command starts a
//! process group, and the whole group is killed at the limit, or when the
//! command exits: what it left running goes with it.
//!
//! Time is not all a student's code can run away with. A `println!` in a
//! loop that never ends fills, within its minute, either the log file (a
//! gigabyte of disk) or, since libtest captures a test's prints, memory
//! (1.6 GB after 4.5 s, measured). So a test binary of a student's runs
//! under [`Bounds`] too: the kernel ends it when it passes them.

use std::io;
use std::mem::MaybeUninit;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// What a process may take besides time, set as resource limits it
/// inherits (`setrlimit(2)`) before it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The most it may write to a file (its log): a write past it ends it
    /// with `SIGXFSZ` (`RLIMIT_FSIZE`).
    pub output_bytes: u64,
    /// The most data memory it may map: an allocation past it fails, and
    /// Rust aborts with "memory allocation of N bytes failed"
    /// (`RLIMIT_DATA`).
    pub memory_bytes: u64,
}

impl Bounds {
    /// The bounds of a student's test binary: far above what any
    /// exercise's tests take, far below what ends a teacher's machine.
    pub const STUDENT: Bounds = Bounds {
        output_bytes: 64 << 20,
        memory_bytes: 4 << 30,
    };

    /// Which bound, if any, ended a process that exited with `status`
    /// and printed `output`: a line for a teacher, with the likely cause.
    pub fn passed(&self, status: ExitStatus, output: &str) -> Option<String> {
        if status.signal() == Some(libc::SIGXFSZ) {
            return Some(format!(
                "it printed more than {} MB, its bound (a print in a loop that never ends?)",
                self.output_bytes >> 20
            ));
        }
        let out_of_memory = output
            .lines()
            .any(|l| l.starts_with("memory allocation of") && l.ends_with("failed"));
        (status.signal() == Some(libc::SIGABRT) && out_of_memory).then(|| {
            format!(
                "it used up its {} GB of memory (the captured output of a print in a loop \
                 that never ends, or a collection that grows for ever?)",
                self.memory_bytes >> 30
            )
        })
    }

    /// Sets the bounds on `command`'s process before it starts.
    fn apply(self, command: &mut Command) {
        let limits = [
            (libc::RLIMIT_FSIZE, self.output_bytes),
            (libc::RLIMIT_DATA, self.memory_bytes),
        ];
        let set = move || {
            for (resource, bytes) in limits {
                let limit = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                // SAFETY: `limit` is a valid `rlimit` that outlives the
                // call, which only reads it.
                if unsafe { libc::setrlimit(resource, &limit) } != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        };
        // SAFETY: the closure runs in the child between fork and exec, where
        // only async-signal-safe calls are allowed: it makes none but
        // `setrlimit` (which is one), allocates nothing and takes no lock.
        unsafe { command.pre_exec(set) };
    }
}

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
    command: Command,
    dir: &Path,
    log: &Path,
    limit: Duration,
) -> Result<Option<ExitStatus>> {
    run_bounded(command, dir, log, limit, None)
}

/// [`run`], and the process (with whatever it starts) within `bounds`.
///
/// ```
/// use std::os::unix::process::ExitStatusExt;
/// use std::process::Command;
/// use std::time::Duration;
/// use xtask::limited::{Bounds, run_bounded};
///
/// let log = std::env::temp_dir().join(format!("limited-bounded-doc-{}", std::process::id()));
/// let dir = std::env::temp_dir();
/// let bounds = Bounds { output_bytes: 1 << 20, ..Bounds::STUDENT };
/// let mut spams = Command::new("sh");
/// spams.args(["-c", "while :; do echo polled; done"]);
/// let status = run_bounded(spams, &dir, &log, Duration::from_secs(20), Some(bounds))?;
/// let status = status.expect("ended by its bound, long before its time limit");
/// assert_eq!(status.signal(), Some(libc::SIGXFSZ));
/// assert!(bounds.passed(status, "").is_some_and(|why| why.contains("more than 1 MB")));
/// assert_eq!(std::fs::metadata(&log)?.len(), 1 << 20, "the log stopped at the bound");
/// # std::fs::remove_file(&log)?;
/// # anyhow::Ok(())
/// ```
pub fn run_bounded(
    mut command: Command,
    dir: &Path,
    log: &Path,
    limit: Duration,
    bounds: Option<Bounds>,
) -> Result<Option<ExitStatus>> {
    if let Some(bounds) = bounds {
        bounds.apply(&mut command);
    }
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
    // The group's id is the child's pid (`process_group(0)`).
    let group = libc::pid_t::try_from(child.id())?;
    loop {
        if has_exited(group)? {
            // What it started and left running (a child asleep, a server
            // still listening) ends with it: it is in its group.
            kill_group(group);
            return Ok(Some(child.wait()?));
        }
        if started.elapsed() > limit {
            kill_group(group);
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the child `pid` has exited, without reaping it: until it is
/// reaped, its pid (and so its group's id) cannot be given to another
/// process, so the group can still be killed safely.
fn has_exited(pid: libc::pid_t) -> io::Result<bool> {
    let mut info = MaybeUninit::<libc::siginfo_t>::zeroed();
    let id = libc::id_t::try_from(pid).map_err(io::Error::other)?;
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: `info` is room for one `siginfo_t`, which `waitid` only
    // writes; WNOWAIT leaves the child to be reaped by `Child::wait`.
    if unsafe { libc::waitid(libc::P_PID, id, info.as_mut_ptr(), flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: all zeroes is a valid `siginfo_t`, and `waitid` returned 0.
    let info = unsafe { info.assume_init() };
    // SAFETY: with WNOHANG, `waitid` sets `si_pid` to the child's pid if
    // it exited, and leaves it 0 (as zeroed) if not.
    Ok(unsafe { info.si_pid() } != 0)
}

/// Kills every process left in the group `group`.
fn kill_group(group: libc::pid_t) {
    // SAFETY: `killpg` takes plain integers and touches no memory of
    // ours; a group with no process left answers ESRCH, which is fine.
    unsafe { libc::killpg(group, libc::SIGKILL) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_passed_is_told_by_its_signal_and_the_runtime_s_last_word() {
        let bounds = Bounds::STUDENT;
        let exited = |code: i32| ExitStatus::from_raw(code << 8);
        let signalled = |signal: i32| ExitStatus::from_raw(signal);
        let output = bounds.passed(signalled(libc::SIGXFSZ), "");
        assert!(output.is_some_and(|why| why.contains("more than 64 MB")));
        let oom = "running 2 tests\nmemory allocation of 4294967296 bytes failed\n";
        let memory = bounds.passed(signalled(libc::SIGABRT), oom);
        assert!(memory.is_some_and(|why| why.contains("its 4 GB of memory")));
        assert_eq!(bounds.passed(signalled(libc::SIGABRT), "abort\n"), None);
        assert_eq!(bounds.passed(exited(101), oom), None);
        assert_eq!(bounds.passed(exited(0), ""), None);
    }

    #[test]
    fn what_a_process_leaves_running_ends_with_it() -> Result<()> {
        let dir = std::env::temp_dir();
        let log = dir.join(format!("limited-leftover-{}", std::process::id()));
        let mut leaves = Command::new("sh");
        leaves.args(["-c", "sleep 30 & echo $!"]);
        let status = run(leaves, &dir, &log, Duration::from_secs(10))?;
        let pid = std::fs::read_to_string(&log)?.trim().to_owned();
        std::fs::remove_file(&log)?;
        assert!(status.is_some_and(|s| s.success()));
        // Killed, it may stay a zombie until init reaps it: gone or dead.
        let running = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "))
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!running(), "the `sleep` it started, pid {pid}, still runs");
        Ok(())
    }

    #[test]
    fn the_memory_bound_fails_an_allocation_past_it() -> Result<()> {
        let dir = std::env::temp_dir();
        let log = dir.join(format!("limited-memory-{}", std::process::id()));
        // 256 MB of data, in a process allowed 64 MB (Python's own
        // interpreter takes about 10).
        let allocates = || {
            let mut python = Command::new("python3");
            python.args(["-c", "b = bytearray(256 << 20); print('allocated')"]);
            python
        };
        let bounds = Bounds {
            memory_bytes: 64 << 20,
            ..Bounds::STUDENT
        };
        let limit = Duration::from_secs(30);
        let bounded = run_bounded(allocates(), &dir, &log, limit, Some(bounds))?;
        let bounded_log = std::fs::read_to_string(&log)?;
        let free = run_bounded(allocates(), &dir, &log, limit, None)?;
        std::fs::remove_file(&log)?;
        assert!(
            bounded.is_some_and(|s| !s.success()) && bounded_log.contains("MemoryError"),
            "{bounded:?}: {bounded_log}"
        );
        assert!(free.is_some_and(|s| s.success()), "unbounded, it allocates");
        Ok(())
    }
}
