//! `--watch` as a user meets it: without a terminal it steps aside in one
//! line; in a terminal (a pseudo-terminal made by `script`), `q` stops the
//! run, the terminal comes back, and the report of what was recorded is
//! printed, matching the database.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use testbed::store::{DbTarget, Store};
use testbed::testing::{KillOnDrop, run_bin};

const BIN: &str = env!("CARGO_BIN_EXE_05-pool");
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn without_a_terminal_watch_says_so_in_one_line_and_the_run_goes_on() {
    let output = run_bin(
        BIN,
        &["--items", "20", "--latency", "1ms", "--watch"],
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let said: Vec<_> = stderr.lines().filter(|l| l.contains("--watch")).collect();
    assert_eq!(
        said,
        [
            "--watch: standard output is not a terminal; the run goes on with the usual progress line"
        ]
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("pool: 20 items"));
}

/// Leaves the pseudo-terminal's output readable to the test while the
/// child runs; the thread ends at the output's end of file.
fn drain(mut from: impl Read + Send + 'static) -> (Arc<Mutex<Vec<u8>>>, JoinHandle<()>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let reader = std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = from.read(&mut chunk) {
            sink.lock()
                .expect("not poisoned")
                .extend_from_slice(&chunk[..n]);
        }
    });
    (seen, reader)
}

fn text(seen: &Mutex<Vec<u8>>) -> String {
    String::from_utf8_lossy(&seen.lock().expect("not poisoned")).into_owned()
}

#[test]
fn q_in_the_live_view_stops_the_run_and_the_database_matches_its_report() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed to make a terminal");
        return;
    }
    let db: PathBuf = std::env::temp_dir().join(format!("watch-quit-{}.db", std::process::id()));
    // A terminal made from a pipe has no size until it is given one.
    let command = format!(
        "stty rows 30 cols 120; {BIN} --items 1000000 --latency 1ms --conns 10 --watch --db {}",
        db.display()
    );
    // `script` runs the command on a pseudo-terminal and passes our stdin
    // to it as keys (-e: its exit status is the command's).
    // Killed however the test ends (`script` passes the hang-up on).
    let mut child = KillOnDrop::spawn(
        Command::new("script")
            .args(["-qfec", &command, "/dev/null"])
            .env("TERM", "xterm")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
    .expect("script runs");
    let (seen, reader) = drain(child.stdout.take().expect("piped"));
    let target = DbTarget::File(db.clone());
    let start = Instant::now();
    // The view is drawn, with the loop's wake-ups ("at 0.3s  slept 1.0ms
    // ..."), and the run has recorded something.
    while !(text(&seen).contains("q or Ctrl-C stops the run")
        && text(&seen).contains("slept ")
        && Store::rows_so_far(&target, Instant::now()).is_ok_and(|rows| !rows.is_empty()))
    {
        if start.elapsed() > DEADLINE || matches!(child.try_wait(), Ok(Some(_))) {
            let _ = child.kill();
            panic!("the view never showed a recording run:\n{}", text(&seen));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child
        .stdin
        .as_mut()
        .expect("piped")
        .write_all(b"q")
        .expect("a key");
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("q did not stop the run:\n{}", text(&seen));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Everything the run printed is read once the reader meets the end of
    // the output (`script` has exited, so it comes). Waiting for a word of
    // the account instead is a race: the live view above it says "failed"
    // too, and the last lines may still be in the pipe.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !reader.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        reader.is_finished(),
        "the output never ended after the run did:\n{}",
        text(&seen)
    );
    let out = text(&seen);
    assert_eq!(status.code(), Some(130), "SIGINT's exit status:\n{out}");
    // The terminal is given back (alternate screen left) before the
    // account is printed.
    let left = out
        .rfind("\x1b[?1049l")
        .expect("the alternate screen is left");
    let account = out
        .find("interrupted by SIGINT")
        .unwrap_or_else(|| panic!("no account of the interruption:\n{out}"));
    assert!(left < account, "the terminal first:\n{out}");
    // "pool: interrupted by SIGINT after 1.20s: 812 of 1000000 items recorded in ..."
    let recorded: usize = out[account..]
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count in the account:\n{out}"));
    let rows = Store::open(&target, Instant::now())
        .and_then(|store| store.rows())
        .expect("the database reads back whole");
    assert_eq!(
        rows.len(),
        recorded,
        "the account counts the database's rows"
    );
    assert!(
        rows.iter().all(|row| row.outcome.is_ok()),
        "no faults, no failures"
    );
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
}
