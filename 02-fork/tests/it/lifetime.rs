//! The process family's life and death: a parent that dies takes its
//! children with it, a parent that is interrupted stops them and says so,
//! and a server that dies under a run fails it.
//!
//! Each test starts the binary, finds its children in `/proc`, and acts on
//! one of them. Every wait has a deadline; processes left behind by a
//! failing test are killed by pid.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use testbed::store::{DbTarget, Store};
use testbed::testing::{KillOnDrop, json_report};

const BIN: &str = env!("CARGO_BIN_EXE_02-fork");
const DEADLINE: Duration = Duration::from_secs(30);

/// A run long enough to act on: 2,000 items over four workers, two 20 ms
/// lines each, about twenty seconds, mostly asleep (the tests beside these
/// ones have timeouts to meet).
const LONG_RUN: [&str; 6] = ["--items", "2000", "--latency", "20ms", "--conns", "4"];

/// The workers of [`LONG_RUN`].
const WORKERS: usize = 4;

/// Starts a long run, killed however the test ends.
fn start(args: &[&str]) -> KillOnDrop {
    KillOnDrop::spawn(
        Command::new(BIN)
            .args(LONG_RUN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .expect("the binary starts")
}

/// The children of `parent`, as its main thread's `children` file lists
/// them (the process forks from its main thread only).
fn children_of(parent: u32) -> Vec<u32> {
    fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
        .map(|list| {
            list.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A process, known by its pid and its start time: once it has ended, its
/// pid may be given to another process, which must not pass for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Proc {
    pid: u32,
    start: u64,
}

impl Proc {
    /// The process `pid` is now, if there is one.
    fn of(pid: u32) -> Option<Proc> {
        Some(Proc {
            pid,
            start: start_time(pid)?,
        })
    }

    /// Still running: the same start time, and not a zombie.
    fn alive(self) -> bool {
        start_time(self.pid) == Some(self.start)
    }
}

/// When `pid` started (`stat`'s field 22, in clock ticks since boot), if it
/// has not ended. The fields are counted after the command name, which is
/// in parentheses and may hold spaces: the state is the first of them.
fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    // A zombie has ended; it only waits to be reaped.
    if *fields.first()? == "Z" {
        return None;
    }
    fields.get(19)?.parse().ok()
}

/// How many threads `pid` has: the forked server has several, a worker one.
fn threads_of(pid: u32) -> usize {
    fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |tasks| tasks.count())
}

/// Polls until `condition` holds; panics after `limit`. Every 20 ms: the
/// conditions read `/proc` or the database, and the tests running beside
/// these have timeouts to meet.
#[track_caller]
fn wait_until(what: &str, limit: Duration, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// The run's workers and its server, once all have started. (A child's
/// pid is not reused before its parent reaps it: these are safe to signal
/// while the parent lives.)
fn family(parent: u32) -> (Vec<Proc>, Proc) {
    let mut found = (Vec::new(), None);
    wait_until("the workers and the server", DEADLINE, || {
        let children: Vec<Proc> = children_of(parent)
            .into_iter()
            .filter_map(Proc::of)
            .collect();
        let (server, workers): (Vec<Proc>, Vec<Proc>) =
            children.into_iter().partition(|p| threads_of(p.pid) > 1);
        found = (workers, server.first().copied());
        found.0.len() == WORKERS && found.1.is_some()
    });
    let (workers, server) = found;
    (workers, server.expect("found above"))
}

fn signal(pid: u32, signal: Signal) {
    let pid = Pid::from_raw(i32::try_from(pid).expect("pids fit an i32"));
    // Already gone is fine: that is what the tests wait for.
    let _ = kill(pid, signal);
}

/// Waits for the binary to end and collects its output.
#[track_caller]
fn finish(mut child: KillOnDrop) -> Output {
    let pid = child.id();
    let deadline = Instant::now() + DEADLINE;
    while child.try_wait().expect("waitpid works").is_none() {
        if Instant::now() > deadline {
            for orphan in children_of(pid) {
                signal(orphan, Signal::SIGKILL);
            }
            let _ = child.kill();
            panic!("02-fork still running after {DEADLINE:?}: killed");
        }
        thread::sleep(Duration::from_millis(5));
    }
    child
        .into_inner()
        .wait_with_output()
        .expect("the output is collected")
}

/// Rows in the results file (0 while it has none, or no table yet).
fn rows(db: &Path) -> u64 {
    Store::open(&DbTarget::File(db.to_owned()), Instant::now())
        .and_then(|store| store.lane_activity())
        .map_or(0, |lanes| lanes.iter().map(|&(_, count, _)| count).sum())
}

#[test]
fn a_dead_server_fails_the_run_with_a_problem() {
    let child = start(&["--json"]);
    let (_, server) = family(child.id());
    signal(server.pid, Signal::SIGKILL);
    let output = finish(child);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = json_report(&output);
    let problem = report["problems"][0].as_str().unwrap_or_default();
    assert!(problem.contains("embedded server died"), "{report}");
    assert!(problem.contains("killed by SIGKILL"), "{report}");
}

#[test]
fn workers_die_with_their_parent_whatever_kills_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("f.db");
    let db_arg = db.to_string_lossy().into_owned();
    let mut child = start(&["--db", &db_arg]);
    let (workers, server) = family(child.id());
    wait_until("a few outcomes", DEADLINE, || rows(&db) > 0);
    let before = rows(&db);
    // SIGKILL: no handler runs, nothing is cleaned up.
    child.kill().expect("the parent can be killed");
    let _ = child.wait();
    let family: Vec<Proc> = workers.iter().copied().chain([server]).collect();
    wait_until(
        "every worker and the server to die",
        Duration::from_secs(5),
        || family.iter().all(|p| !p.alive()),
    );
    // Orphans that lived on would record the rest of their partitions,
    // as refused with the server gone: all 2,000 items. The workers
    // record about a hundred items a second between them; 200 more rows
    // leaves two seconds for this test's own thread to be descheduled
    // between counting and killing, on a loaded machine.
    let after = rows(&db);
    assert!(
        after <= before + 200,
        "{before} rows at the kill, {after} after"
    );
}

#[test]
fn an_interrupted_parent_stops_its_workers_and_reports_what_was_recorded() {
    for (sig, status) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let db = dir.path().join("f.db");
        let db_arg = db.to_string_lossy().into_owned();
        let child = start(&["--db", &db_arg]);
        let parent = child.id();
        let (workers, server) = family(parent);
        wait_until("a few outcomes", DEADLINE, || rows(&db) > 0);
        // The parent alone, as `kill PID` or a supervisor does; not the
        // process group, as Ctrl-C in a terminal does.
        signal(parent, sig);
        let output = finish(child);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{sig}: {stderr}");
        let family: Vec<Proc> = workers.iter().copied().chain([server]).collect();
        assert!(
            family.iter().all(|p| !p.alive()),
            "{sig}: the parent ended before its children"
        );
        let recorded = rows(&db);
        let line = stderr.lines().next().unwrap_or_default();
        assert!(line.contains(&format!("interrupted by {sig}")), "{line}");
        assert!(
            line.contains(&format!("{recorded} of 2000 items recorded in {db_arg}")),
            "{recorded} rows: {line}"
        );
        assert!(stderr.contains("fork: "), "the partial report: {stderr}");
        assert!(output.stdout.is_empty(), "the report goes to stderr");
    }
}
