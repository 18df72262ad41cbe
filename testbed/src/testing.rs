//! Helpers for the stages' tests: run a stage binary with a deadline, and
//! talk to a scripted peer instead of a server.
//!
//! A test that starts a process must not hang the suite if the process
//! hangs, so [`run_bin`] kills it at the deadline and says so. (Polling
//! `try_wait` is not a sleep-then-assert: the sleep only paces the poll.)
//! [`run_bin_interrupted`] does the same for a run stopped by a signal.
//! [`smoke_run`] is the first test of every stage binary: a short run that
//! must verify, whose report the test then reads for the stage's figures.
//!
//! [`Script`] is a stream whose replies are written in advance, so a test
//! can drive request code (`Conn<Script>`) through every reply, right or
//! wrong, without a socket or a clock.

use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub use nix::sys::signal::Signal;

mod bounded;
mod child;
mod hostile;
mod property;
mod quiet;
mod racing_waker;
mod script;
mod seccomp;

pub use bounded::{within, within_or};
pub use child::KillOnDrop;
pub use property::proptest_config;
pub use quiet::{
    CPU_SHARE, Counted, Polls, RUNNABLE_SHARE, WaitCost, assert_quiet, assert_quiet_within,
    thread_cpu, thread_runnable,
};
// Kept here too, beside the other helpers for tests.
pub use crate::sample::rows_on_lanes;
pub use racing_waker::RacingWaker;
pub use script::Script;
pub use seccomp::forbid_io_uring;

pub use hostile::{
    BAD_DURATIONS, STAGE_DURATION_FLAGS, assert_durations_refused, assert_foreign_db_untouched,
    assert_full_stdout_reported, assert_gone_server_is_a_problem, assert_longest_durations_run,
    assert_nothing_to_measure_is_said, assert_quiet_on_closed_stdout,
    assert_stage_survives_hostile_use, assert_unusable_outputs_refused,
};

use crate::conformance::{announce, late_replies, patient};
use crate::duration::{format_duration, parse_duration};
use crate::report::Report;

/// How often [`run_bin`] checks whether the child has exited.
const POLL: Duration = Duration::from_millis(5);

/// Runs `program` with `args`, capturing its output; panics if it is still
/// running after `deadline` (after killing it).
#[track_caller]
pub fn run_bin(program: impl AsRef<Path>, args: &[&str], deadline: Duration) -> Output {
    let mut command = Command::new(program.as_ref());
    command.args(args);
    run_command(command, deadline)
}

/// [`run_bin`] with the child's stdout sent to `stdout` (a closed pipe,
/// `/dev/full`...); the output's `stdout` is then empty.
#[track_caller]
pub fn run_bin_to(
    program: impl AsRef<Path>,
    args: &[&str],
    stdout: Stdio,
    deadline: Duration,
) -> Output {
    let mut command = Command::new(program.as_ref());
    command.args(args);
    Running::start_with(command, Some(stdout)).finish(deadline)
}

/// [`run_bin`] for a command built by the caller (with an environment, a
/// [descriptor limit](limit_descriptors)...).
#[track_caller]
pub fn run_command(command: Command, deadline: Duration) -> Output {
    Running::start(command).finish(deadline)
}

/// Runs `program` with `args` until `ready` says so (polled; it may look at
/// a database, a file...), then sends `signal` to that process alone (not
/// its group: as `kill PID` or a supervisor does), and returns its output.
/// Panics if it ends before it is ready, or is still running after
/// `deadline`.
#[track_caller]
pub fn run_bin_interrupted(
    program: impl AsRef<Path>,
    args: &[&str],
    signal: Signal,
    mut ready: impl FnMut() -> bool,
    deadline: Duration,
) -> Output {
    let mut command = Command::new(program.as_ref());
    command.args(args);
    let mut running = Running::start(command);
    let start = Instant::now();
    while !ready() {
        let ended = matches!(running.child.try_wait(), Ok(Some(_)));
        if ended || start.elapsed() > deadline {
            let output = running.finish(deadline);
            panic!(
                "{} {args:?} {} before it was ready to interrupt: {output:?}",
                running_name(program.as_ref()),
                if ended { "ended" } else { "was not ready" }
            );
        }
        std::thread::sleep(POLL);
    }
    let pid =
        nix::unistd::Pid::from_raw(i32::try_from(running.child.id()).expect("a pid fits an i32"));
    // Already gone is what `finish` then reports.
    let _ = nix::sys::signal::kill(pid, signal);
    running.finish(deadline)
}

fn running_name(program: &Path) -> String {
    program.display().to_string()
}

/// A child with its output drained on threads: a child blocked on a full
/// pipe would otherwise look like a hang.
struct Running {
    child: KillOnDrop,
    description: String,
    out: JoinHandle<Vec<u8>>,
    err: JoinHandle<Vec<u8>>,
}

impl Running {
    #[track_caller]
    fn start(command: Command) -> Running {
        Running::start_with(command, None)
    }

    /// [`Running::start`], with `stdout` where the child writes instead of
    /// a pipe this process drains.
    #[track_caller]
    fn start_with(mut command: Command, stdout: Option<Stdio>) -> Running {
        let description = format!(
            "{} {:?}",
            Path::new(command.get_program()).display(),
            command
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        );
        let given = stdout.is_some();
        let mut child = KillOnDrop::spawn(
            command
                .stdin(Stdio::null())
                .stdout(stdout.unwrap_or_else(Stdio::piped))
                .stderr(Stdio::piped()),
        )
        .unwrap_or_else(|e| panic!("cannot start {description}: {e}"));
        let drain = |mut pipe: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = pipe.read_to_end(&mut buf);
                buf
            })
        };
        let out = match child.stdout.take() {
            Some(pipe) => drain(Box::new(pipe)),
            None => {
                assert!(given, "stdout was piped");
                drain(Box::new(io::empty()))
            }
        };
        let err = drain(Box::new(child.stderr.take().expect("stderr was piped")));
        Running {
            child,
            description,
            out,
            err,
        }
    }

    /// Waits for the child's end; kills it and panics after `deadline`.
    #[track_caller]
    fn finish(mut self, deadline: Duration) -> Output {
        let start = Instant::now();
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() < deadline => std::thread::sleep(POLL),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    panic!(
                        "{} still running after {deadline:?}: killed",
                        self.description
                    );
                }
            }
        };
        Output {
            status,
            stdout: self.out.join().unwrap_or_default(),
            stderr: self.err.join().unwrap_or_default(),
        }
    }
}

/// Makes `command` run with `RLIMIT_NOFILE` at `limit`, soft and hard, as
/// `prlimit --nofile=LIMIT:LIMIT` would: the program cannot raise it, and
/// meets "too many open files" where a small machine would.
pub fn limit_descriptors(command: &mut Command, limit: u64) -> &mut Command {
    use nix::sys::resource::{Resource, setrlimit};
    // SAFETY: the closure runs in the child between `fork` and `exec`,
    // where only async-signal-safe functions may be called (other threads'
    // locks are copied held). `setrlimit` is a plain system call, and the
    // closure neither allocates nor locks: on failure it converts an errno
    // into an `io::Error`, which holds the number without allocating.
    unsafe {
        command.pre_exec(move || {
            setrlimit(Resource::RLIMIT_NOFILE, limit, limit).map_err(io::Error::from)
        })
    }
}

/// Parses a stage's `--json` output: exactly one JSON object on stdout.
#[track_caller]
pub fn json_report(output: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        lines.next().is_none(),
        "--json printed more than one line:\n{stdout}"
    );
    match serde_json::from_str::<serde_json::Value>(first) {
        Ok(value) if value.is_object() => value,
        _ => panic!(
            "--json did not print a JSON object:\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// [`run_bin`] for a stage run with `--read-timeout` and `--json`, with the
/// conformance battery's second chance: when the report's only departure
/// from the server's faults is extra `timeout`s (replies a busy machine
/// read late, [`late_replies`]), the same run goes again with a read timeout
/// [`PATIENCE`](crate::conformance::PATIENCE) times longer, and that run's
/// output is returned.
#[track_caller]
pub fn run_timed_bin(program: impl AsRef<Path>, args: &[&str], deadline: Duration) -> Output {
    let program = program.as_ref();
    let output = run_bin(program, args, deadline);
    let at = args.iter().position(|&arg| arg == "--read-timeout");
    let limit = at.and_then(|at| parse_duration(args.get(at + 1)?));
    let (Some(at), Some(limit)) = (at, limit) else {
        panic!("run_timed_bin needs --read-timeout DURATION among {args:?}");
    };
    let report = serde_json::from_value::<Report>(json_report(&output));
    let Some(late) = report.ok().as_ref().and_then(late_replies) else {
        return output;
    };
    let patient = format_duration(patient(limit));
    announce(&format!(
        "{}: {late} replies read late with --read-timeout {}; again with {patient}",
        program.display(),
        args[at + 1]
    ));
    let mut again = args.to_vec();
    again[at + 1] = &patient;
    run_bin(program, &again, deadline)
}

/// Runs `program` with arguments it must refuse, and checks that it
/// refuses them the way every binary here does: status 2, one line on
/// stderr, nothing on stdout. Returns that line, for the caller to check
/// what it names.
#[track_caller]
pub fn usage_error(program: impl AsRef<Path>, args: &[&str], deadline: Duration) -> String {
    let output = run_bin(program, args, deadline);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        output.stdout.is_empty(),
        "{args:?} printed on stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    stderr
}

/// Runs `program` with `args` and `--timeline` pointing at a fresh file,
/// checks that the run succeeded, and returns the SVG it wrote.
#[track_caller]
pub fn timeline_of(program: impl AsRef<Path>, args: &[&str], deadline: Duration) -> String {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("timeline.svg");
    let path_arg = path.to_string_lossy().into_owned();
    let output = run_bin(
        program,
        &[args, &["--timeline", &path_arg]].concat(),
        deadline,
    );
    assert!(output.status.success(), "{args:?}: {output:?}");
    std::fs::read_to_string(&path).expect("the timeline was written")
}

/// The smoke run every stage binary's tests start with: `program` with
/// `--items ITEMS`, then `args`, then `--json`. The run must exit 0 with
/// one JSON report that has every key of the contract
/// ([`CONTRACT_KEYS`](crate::report::CONTRACT_KEYS)), names `stage`, and
/// has every item `ok`, none `lost` or `wrong`. Returns the report, for the
/// stage's own figures.
///
/// Not run here: a doc test has no stage binary to start (cargo names one
/// only to its own package's integration tests, as `CARGO_BIN_EXE_<name>`).
///
/// ```no_run
/// use std::time::Duration;
///
/// // In 01-sync's `tests/`: `env!("CARGO_BIN_EXE_01-sync")`.
/// let report = testbed::testing::smoke_run(
///     "target/debug/01-sync",
///     "sync",
///     20,
///     &["--latency", "1ms"],
///     Duration::from_secs(30),
/// );
/// assert_eq!(report["db_connections"], 1);
/// ```
#[track_caller]
pub fn smoke_run(
    program: impl AsRef<Path>,
    stage: &str,
    items: u64,
    args: &[&str],
    deadline: Duration,
) -> serde_json::Value {
    let items_arg = items.to_string();
    let args = [&["--items", items_arg.as_str()][..], args, &["--json"]].concat();
    let output = run_bin(program, &args, deadline);
    assert!(output.status.success(), "{args:?}: {output:?}");
    let report = json_report(&output);
    for key in crate::report::CONTRACT_KEYS {
        assert!(report.get(key).is_some(), "no {key} in {report}");
    }
    assert_eq!(report["stage"], stage, "{report}");
    assert_eq!(
        (
            report["ok"].as_u64(),
            report["lost"].as_u64(),
            report["wrong"].as_u64()
        ),
        (Some(items), Some(0), Some(0)),
        "ok, lost, wrong: {report}"
    );
    report
}

/// A listener whose accept queue is full, so that the kernel drops every
/// further SYN: what a server behind a firewall that drops packets, or one
/// too overloaded to accept, looks like to a client. A connect to
/// [`SynDropper::addr`] neither succeeds nor fails; only a connect timeout
/// ends it.
///
/// Built from a listener with a backlog of one that never accepts, filled
/// with handshakes that completed (Linux drops a SYN when the accept queue
/// is full, whatever its SYN-cookie setting).
#[derive(Debug)]
pub struct SynDropper {
    listener: socket2::Socket,
    /// The connections that fill the queue, kept open.
    _filling: Vec<std::net::TcpStream>,
}

impl SynDropper {
    /// Binds on loopback and fills the accept queue.
    ///
    /// # Panics
    ///
    /// If the queue cannot be filled within a few seconds (a kernel that
    /// does not drop SYNs on a full queue): the test cannot test anything.
    pub fn new() -> SynDropper {
        use socket2::{Domain, Socket, Type};
        let listener = Socket::new(Domain::IPV4, Type::STREAM, None).expect("socket");
        let local: std::net::SocketAddr = ([127, 0, 0, 1], 0).into();
        listener.bind(&local.into()).expect("bind on loopback");
        listener.listen(0).expect("listen");
        let addr = listener
            .local_addr()
            .expect("local address")
            .as_socket()
            .expect("an IPv4 address");
        let mut filling = Vec::new();
        // Each completed handshake takes a place in the queue; the first
        // connect that cannot complete within the probe's time shows that
        // the queue is full and SYNs are now dropped.
        let probe = Duration::from_millis(200);
        for _ in 0..16 {
            match std::net::TcpStream::connect_timeout(&addr, probe) {
                Ok(stream) => filling.push(stream),
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    return SynDropper {
                        listener,
                        _filling: filling,
                    };
                }
                Err(e) => panic!("filling the accept queue: {e}"),
            }
        }
        panic!("the accept queue never filled: this kernel does not drop SYNs")
    }

    /// Where connects hang.
    pub fn addr(&self) -> std::net::SocketAddr {
        self.listener
            .local_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .expect("a bound IPv4 listener has an address")
    }
}

impl Default for SynDropper {
    fn default() -> Self {
        SynDropper::new()
    }
}

/// Runs a stage binary against a [`SynDropper`] with a 100 ms
/// `--connect-timeout` and checks that each of its three items failed with
/// `timeout`, none lost, well within a deadline: every stage's regression
/// test for bounded connects. Without a connect timeout each connect waits
/// for the kernel's own limit (about two minutes), and the deadline kills
/// the run, which fails the test.
#[track_caller]
pub fn assert_connects_time_out(program: impl AsRef<Path>) {
    let dropper = SynDropper::new();
    let server = dropper.addr().to_string();
    let args = [
        "--server",
        &server,
        "--items",
        "3",
        "--connect-timeout",
        "100ms",
        "--json",
    ];
    let output = run_bin(program, &args, Duration::from_secs(20));
    let report = json_report(&output);
    assert_eq!(report["errors"]["timeout"], 3, "{report}");
    assert_eq!(report["lost"], 0, "{report}");
}

/// Every `.rs` file under `dir`, recursively: what the stages' tidy tests
/// read (a module doc on every file, no blocking call in a loop's code).
///
/// # Panics
///
/// If `dir` cannot be read: a tidy test without its sources tests nothing.
pub fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}
