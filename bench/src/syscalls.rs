//! System calls per item, counted by the kernel.
//!
//! A readiness loop pays a `write`, a `read` and a share of `epoll_wait`
//! for every line; a completion loop hands the kernel a whole turn's
//! operations in one `io_uring_enter`. The race shows the difference as a
//! column, and the count must not be an estimate: each contender runs one
//! more lap, in a process of its own (the race binary's `contender`
//! subcommand), under a tool that asks the kernel to count every system
//! call it enters: `perf stat -e raw_syscalls:sys_enter`, or `strace -c -f`
//! where perf is missing. Children count too (inherited counters), so
//! 02-fork's workers are in its figure.
//!
//! The counted lap is not one of the timed rounds: a tracepoint that
//! counts costs a little on every call, and strace a lot, so counting in a
//! timed round would charge the readiness rungs, which make more calls, a
//! price the others do not pay.
//!
//! The figure includes what the process does besides the client: starting,
//! creating the in-memory database, the watchdog's thread, printing the
//! lap. That is a few hundred calls per process, under 0.05 per item at
//! the race's item counts; a `--items 1` lap shows it.
//!
//! The race installs nothing. When neither tool works, it says how to get
//! one, and the column stays empty.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use testbed::cli::Settings;

use crate::contenders::Contender;
use crate::run::{CONTENDER_SUBCOMMAND, RunError, Runner, settings_args};

/// A tool that can count a command's system calls. `race.json` records
/// which one counted (`"perf"` or `"strace"`), because they do not agree:
/// strace sees calls perf's tracepoint does not, and misses some it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counter {
    /// `perf stat -e raw_syscalls:sys_enter`: a kernel counter, cheap.
    Perf,
    /// `strace -c -f`: works where perf events are forbidden, but slows
    /// every call down.
    Strace,
}

impl Counter {
    /// The first tool that counts the system calls of `probe` here, or
    /// what to install. The race's probe is its own binary (`race
    /// --version`, by its full path): the program the counted laps run,
    /// not whatever `true` the `PATH` finds. A tool counts only if it runs,
    /// the probe succeeds under it, and its output holds a count above
    /// zero (every process makes system calls): perf without the right to
    /// read the tracepoint prints `<not supported>` instead, and is passed
    /// over for strace.
    pub fn find(probe: impl Fn() -> Command) -> Result<Counter, String> {
        for counter in [Counter::Perf, Counter::Strace] {
            if counter.count(probe()).is_ok_and(|calls| calls > 0) {
                return Ok(counter);
            }
        }
        Err(
            "neither `perf stat -e raw_syscalls:sys_enter` nor `strace -c` works here, so the \
             system calls per item are not counted: install one (apt-get install linux-perf, \
             or apt-get install strace; perf also needs kernel.perf_event_paranoid <= 1 or \
             root)"
                .into(),
        )
    }

    /// How the legend names it: the command that counted.
    pub fn command(self) -> &'static str {
        match self {
            Counter::Perf => "perf stat -e raw_syscalls:sys_enter",
            Counter::Strace => "strace -c -f",
        }
    }

    /// Runs `command` under the tool; returns how many system calls it
    /// (and its children) entered.
    pub fn count(self, command: Command) -> Result<u64, String> {
        static COUNTS: AtomicU64 = AtomicU64::new(0);
        let n = COUNTS.fetch_add(1, Ordering::Relaxed);
        let out = std::env::temp_dir().join(format!("race-syscalls.{}.{n}", std::process::id()));
        let mut counted = self.wrap(&command, &out);
        // Out of the race's process group, as every lap is (see
        // `Runner::run`): Ctrl-C stops the race after this count, not in it.
        counted.process_group(0);
        let status = counted
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let text = std::fs::read_to_string(&out);
        let _ = std::fs::remove_file(&out);
        match status {
            Ok(status) if status.success() => {}
            Ok(status) => return Err(format!("{counted:?} ended with {status}")),
            Err(e) => return Err(format!("cannot start {self:?}: {e}")),
        }
        let text = text.map_err(|e| e.to_string())?;
        self.parse(&text)
            .ok_or_else(|| format!("no count in {self:?}'s output: {text}"))
    }

    /// `command`, run by the tool, which writes its count to `out`.
    fn wrap(self, command: &Command, out: &Path) -> Command {
        let mut counted = match self {
            Counter::Perf => {
                let mut c = Command::new("perf");
                c.args(["stat", "-x", ",", "-e", "raw_syscalls:sys_enter", "-o"]);
                c
            }
            Counter::Strace => {
                let mut c = Command::new("strace");
                c.args(["-f", "-c", "-o"]);
                c
            }
        };
        counted.arg(out).arg("--").arg(command.get_program());
        counted.args(command.get_args());
        counted
    }

    /// The count in the tool's output: perf's CSV line for the event, or
    /// the `calls` column of strace's `total` line.
    fn parse(self, text: &str) -> Option<u64> {
        match self {
            Counter::Perf => text
                .lines()
                .find(|line| line.contains("raw_syscalls:sys_enter"))
                .and_then(|line| line.split(',').next())
                .and_then(|n| n.trim().parse().ok()),
            Counter::Strace => text
                .lines()
                .find(|line| line.trim_end().ends_with("total"))
                .and_then(|line| line.split_whitespace().nth(3))
                .and_then(|n| n.parse().ok()),
        }
    }
}

// ANCHOR: per_item
/// Runs `contender` once more with `settings`, in a process of its own
/// under `counter`, and returns its system calls per item.
pub fn per_item(
    counter: Counter,
    runner: &Runner,
    contender: &Contender,
    settings: &Settings,
) -> Result<f64, RunError> {
    let mut command = Command::new(&runner.race_exe);
    command
        .arg(CONTENDER_SUBCOMMAND)
        .arg(contender.name)
        .args(settings_args(settings));
    let calls = counter.count(command).map_err(RunError::Child)?;
    Ok(calls as f64 / settings.items.max(1) as f64)
}
// ANCHOR_END: per_item

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_that_fails_finds_no_tool() {
        // Once `true` from PATH: any program that ran said "this tool
        // counts", whatever it was.
        let missing = || Command::new("/nonexistent/race");
        assert!(Counter::find(missing).is_err());
    }

    #[test]
    fn both_outputs_are_read() {
        let perf = "# started on Wed\n\n81234,,raw_syscalls:sys_enter,2001,100.00,,\n";
        assert_eq!(Counter::Perf.parse(perf), Some(81234));
        let strace = "% time     seconds  usecs/call     calls    errors syscall\n\
                      ------ ----------- ----------- --------- --------- ----------------\n\
                       60.00    0.000300           3       100           write\n\
                      100.00    0.000500           2       250        12 total\n";
        assert_eq!(Counter::Strace.parse(strace), Some(250));
        assert_eq!(Counter::Perf.parse("<not counted>,,raw_syscalls"), None);
    }

    #[test]
    fn a_counter_counts_a_real_command_when_one_is_installed() {
        // This test's own binary, by its full path, as the race probes
        // with its own.
        let probe = || {
            let mut command = Command::new(std::env::current_exe().expect("this test's path"));
            command.arg("--list");
            command
        };
        let Ok(counter) = Counter::find(probe) else {
            return; // Nothing to count with: the race leaves the column empty.
        };
        let calls = counter.count(probe()).expect("a count");
        assert!(calls > 0, "{counter:?} counted nothing");
    }
}
