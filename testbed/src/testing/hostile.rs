//! The hostile user's table: values no flag may accept, and outputs that
//! fail, tried on every binary of the workspace the same way.
//!
//! Each package's binary tests call these with their own binaries (a test
//! reaches a binary only through `CARGO_BIN_EXE_*`, which exists for the
//! package's own binaries), so the table is written once, here:
//!
//! - every duration flag refuses [`BAD_DURATIONS`]: exit status 2 and one
//!   line naming the flag, never a panic (a duration beyond a day once
//!   parsed, then overflowed the clock it was added to);
//! - a program whose stdout is a pipe nobody reads ends quietly, as `cat`
//!   does, with the status its work earned;
//! - a program whose stdout is full (`/dev/full`) says so in one line and
//!   exits 1;
//! - a stage whose external server goes away mid-run exits 1 with a
//!   `problem:` and no efficiency (it once exited 0 with `efficiency
//!   89.2%`);
//! - `--db` naming another program's SQLite file is refused, and the file
//!   is left byte for byte as it was, with no `-wal` or `-shm` beside it
//!   (a run once replaced a foreign `run` table and exited 0);
//! - an output (`--timeline`, `--out`) that is a FIFO, a directory, or
//!   has an ending that names no format is refused before the run (a FIFO
//!   once hung a run for ever; `run.png` silently got an SVG);
//! - a run with nothing to measure says why in true words: `--items 0`
//!   (once "see the problem below", with none below), `--latency 0` (once
//!   an ideal of 434782608.7 items/s and 0.0%), and a read timeout no
//!   reply can meet (once blamed on the server).
//!
//! [`assert_stage_survives_hostile_use`] is all of it for one stage binary.

use std::fs::OpenOptions;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use super::{POLL, Running, json_report, run_bin_to, usage_error};
use crate::latency::LatencyModel;
use crate::server::{ServerConfig, SlowServer};

/// Durations every duration flag refuses: beyond a day (the first once
/// panicked as `overflow when adding duration to instant`), negative, and
/// malformed.
pub const BAD_DURATIONS: [&str; 5] = ["10000000000000000000s", "86401s", "-1ms", "-0.5s", "1e3ms"];

/// The duration flags every stage binary takes (`testbed::cli::Settings`).
pub const STAGE_DURATION_FLAGS: [&str; 4] = [
    "--latency",
    "--read-timeout",
    "--connect-timeout",
    "--stall-after",
];

/// Runs `program` with each of `flags` given each of [`BAD_DURATIONS`], and
/// checks each is refused: status 2, one line on stderr that names the
/// flag, nothing on stdout, no panic.
#[track_caller]
pub fn assert_durations_refused(program: impl AsRef<Path>, flags: &[&str], deadline: Duration) {
    for flag in flags {
        for value in BAD_DURATIONS {
            let line = usage_error(program.as_ref(), &[flag, value], deadline);
            assert!(line.contains(flag), "{flag} {value}: {line}");
        }
    }
}

/// Runs `program` with `args` and its stdout a pipe whose reading end is
/// already closed (`program | (exec 0<&-; ...)`), and checks that it ends
/// with `status`, quietly: nothing on stderr, so no panic.
#[track_caller]
pub fn assert_quiet_on_closed_stdout(
    program: impl AsRef<Path>,
    args: &[&str],
    status: i32,
    deadline: Duration,
) {
    let (read, write): (OwnedFd, OwnedFd) = nix::unistd::pipe().expect("a pipe");
    drop(read);
    let output = run_bin_to(program, args, Stdio::from(write), deadline);
    assert_eq!(
        output.status.code(),
        Some(status),
        "{args:?}: {}",
        stderr(&output)
    );
    assert!(output.stderr.is_empty(), "{args:?}: {}", stderr(&output));
}

/// Runs `program` with `args` and its stdout `/dev/full`, and checks that
/// it says so in one line on stderr and exits 1, without a panic.
#[track_caller]
pub fn assert_full_stdout_reported(program: impl AsRef<Path>, args: &[&str], deadline: Duration) {
    let full = OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full, on Linux");
    let output = run_bin_to(program, args, Stdio::from(full), deadline);
    let stderr = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.contains("stdout"), "{args:?}: {stderr}");
}

/// The whole table for a stage binary: its shared duration flags and
/// `extra_durations` (its own) refuse bad values, a closed or full stdout
/// ends it properly, and a server that goes away mid-run is a problem.
#[track_caller]
pub fn assert_stage_survives_hostile_use(
    program: impl AsRef<Path>,
    extra_durations: &[&str],
    deadline: Duration,
) {
    let program = program.as_ref();
    let flags: Vec<&str> = STAGE_DURATION_FLAGS
        .iter()
        .chain(extra_durations)
        .copied()
        .collect();
    assert_durations_refused(program, &flags, deadline);
    assert_longest_durations_run(program, extra_durations, deadline);
    let run = ["--items", "5", "--latency", "1ms"];
    assert_quiet_on_closed_stdout(program, &run, 0, deadline);
    assert_full_stdout_reported(program, &run, deadline);
    assert_foreign_db_untouched(program, &run, deadline);
    assert_unusable_outputs_refused(program, &run, "--timeline", deadline);
    assert_nothing_to_measure_is_said(program, deadline);
    assert_gone_server_is_a_problem(program, deadline);
}

/// Runs `program` with nothing to measure, and checks what its report
/// says: no items, a service time of nanoseconds, and (where the stage
/// has a read timeout) a read timeout of a microsecond against 1 ms
/// replies, which is the timeout's doing, not the server's.
#[track_caller]
pub fn assert_nothing_to_measure_is_said(program: impl AsRef<Path>, deadline: Duration) {
    let program = program.as_ref();
    let output = super::run_bin(program, &["--items", "0", "--latency", "1ms"], deadline);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "--items 0: {output:?}");
    assert!(text.contains("the run had no items"), "--items 0: {text}");

    let output = super::run_bin(program, &["--items", "20", "--latency", "0"], deadline);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("no ideal to compare with"),
        "--latency 0: {text}"
    );
    assert!(!text.contains("efficiency"), "--latency 0: {text}");

    let args = [
        "--items",
        "8",
        "--conns",
        "2",
        "--latency",
        "1ms",
        "--read-timeout",
        "1us",
        "--json",
    ];
    let output = super::run_bin(program, &args, deadline);
    if output.status.code() == Some(2) && stderr(&output).contains("no read timeout") {
        return;
    }
    let report = json_report(&output);
    let problems = report["problems"].to_string();
    assert!(
        !problems.contains("working SLOW/1 server"),
        "{args:?}: the server was fine: {report}"
    );
}

/// Runs `program` with `args` and `--db` naming files another program
/// made: a database with a `run(owner, budget)` table, one with an
/// `outcomes(name, score)` table (both names a results database uses
/// too), and a text file. Each is refused with status 2 in one line, and
/// left as it was: the same bytes, nothing made beside it.
#[track_caller]
pub fn assert_foreign_db_untouched(program: impl AsRef<Path>, args: &[&str], deadline: Duration) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let foreign = [
        (
            "app.db",
            "CREATE TABLE run (owner TEXT, budget INT); INSERT INTO run VALUES ('acme', 1000);",
        ),
        (
            "scores.db",
            "PRAGMA journal_mode = WAL; CREATE TABLE outcomes (name TEXT, score INT); \
             INSERT INTO outcomes VALUES ('ada', 3);",
        ),
    ];
    let mut files = Vec::new();
    for (name, sql) in foreign {
        let path = dir.path().join(name);
        let conn = rusqlite::Connection::open(&path).expect("a foreign database");
        conn.execute_batch(sql).expect("its tables");
        drop(conn);
        files.push(path);
    }
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not a database\n").expect("a text file");
    files.push(notes);
    for path in &files {
        let before = std::fs::read(path).expect("the file");
        let path_arg = path.to_string_lossy().into_owned();
        let mut with_db = args.to_vec();
        with_db.extend(["--db", &path_arg]);
        let line = usage_error(program.as_ref(), &with_db, deadline);
        assert!(line.contains("left untouched"), "{path_arg}: {line}");
        let after = std::fs::read(path).expect("the file is still there");
        assert!(before == after, "{path_arg}: its bytes changed");
    }
    let mut beside: Vec<String> = std::fs::read_dir(dir.path())
        .expect("the directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    beside.sort();
    assert_eq!(
        beside,
        ["app.db", "notes.txt", "scores.db"],
        "nothing beside"
    );
}

/// Runs `program` with `args` and `flag` (an output: `--timeline`,
/// `--out`) naming a FIFO, a directory, and names with an unknown or
/// upper-case ending: each is refused with status 2 in one line before
/// anything runs. The FIFO has no reader: a program that opened it would
/// wait for ever, so `deadline` bounds the test.
#[track_caller]
pub fn assert_unusable_outputs_refused(
    program: impl AsRef<Path>,
    args: &[&str],
    flag: &str,
    deadline: Duration,
) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let fifo = dir.path().join("f.html");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("a FIFO");
    let folder = dir.path().join("d.svg");
    std::fs::create_dir(&folder).expect("a directory");
    let cases = [
        (fifo, "FIFO"),
        (folder, "a directory"),
        (dir.path().join("run.HTML"), ".svg"),
        (dir.path().join("run.png"), ".svg"),
    ];
    for (path, words) in cases {
        let path_arg = path.to_string_lossy().into_owned();
        let mut with_output = args.to_vec();
        with_output.extend([flag, &path_arg]);
        let line = usage_error(program.as_ref(), &with_output, deadline);
        assert!(line.contains(words), "{flag} {path_arg}: {line}");
    }
}

/// Runs `program` with every duration flag at the longest accepted
/// value, a day (`testbed::duration::MAX_DURATION`), and checks the run
/// ends well: the clock arithmetic of every deadline must hold it. A stage
/// that has no read timeout refuses `--read-timeout` (status 2, saying
/// so), and is run without it.
#[track_caller]
pub fn assert_longest_durations_run(
    program: impl AsRef<Path>,
    extra_durations: &[&str],
    deadline: Duration,
) {
    let day = "86400s";
    let mut args = vec!["--items", "5", "--latency", "1ms", "--json"];
    for flag in ["--connect-timeout", "--stall-after"]
        .iter()
        .chain(extra_durations)
    {
        args.extend([*flag, day]);
    }
    let mut with_read = args.clone();
    with_read.extend(["--read-timeout", day]);
    let mut output = super::run_bin(program.as_ref(), &with_read, deadline);
    if output.status.code() == Some(2) && stderr(&output).contains("no read timeout") {
        output = super::run_bin(program.as_ref(), &args, deadline);
    }
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        stderr(&output)
    );
}

/// Runs `program` against a slow server in this process, stops that
/// server once it has served a few lines, and checks the run's end: status
/// 1, a problem saying the server went away, no efficiency. (Stopping it
/// after it served, rather than at a fixed time, keeps the test
/// deterministic: the run has been answered, then refused.)
#[track_caller]
pub fn assert_gone_server_is_a_problem(program: impl AsRef<Path>, deadline: Duration) {
    let server = SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(Duration::from_millis(2)),
        ..ServerConfig::default()
    })
    .expect("a slow server");
    let addr = server.addr().to_string();
    // Two connections, 2,000 items of two 2 ms lines: four seconds if the
    // server stayed, so it is stopped mid-run.
    let args = [
        "--server",
        &addr,
        "--items",
        "2000",
        "--conns",
        "2",
        "--latency",
        "2ms",
        "--json",
    ];
    let mut command = std::process::Command::new(program.as_ref());
    command.args(args);
    let running = Running::start(command);
    let start = Instant::now();
    while server.stats().service.count < 4 {
        assert!(
            start.elapsed() < deadline,
            "{args:?}: the server served nothing"
        );
        std::thread::sleep(POLL);
    }
    drop(server.shutdown());
    let output = running.finish(deadline);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{args:?}: {}",
        stderr(&output)
    );
    let report = json_report(&output);
    let problems = report["problems"].to_string();
    assert!(problems.contains("went away"), "{args:?}: {report}");
    assert!(report["efficiency"].is_null(), "{args:?}: {report}");
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
