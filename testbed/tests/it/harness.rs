//! The harness's refusals and reports, through `execute`, with the
//! plainest stage there is: one blocking connection, one item at a time.
//!
//! What needs a binary (a lowered descriptor limit, a signal, a killed
//! child) is tested by the stages' binaries instead.

use std::net::TcpStream;
use std::path::Path;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use testbed::cli::Settings;
use testbed::conn::Conn;
use testbed::harness::{DEFAULT_EXTERNAL_READ_TIMEOUT, HarnessError, execute};
use testbed::outcome::{ErrorKind, Failure, Outcome};
use testbed::protocol::{Phases, Reply, Request};
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::{DbTarget, Lane, Store};
use testbed::workload::Item;

use crate::util::{IO_TIMEOUT, server};

/// One connection per item, one item at a time; remembers the read
/// timeout it was given.
#[derive(Default)]
pub(crate) struct Serial {
    read_timeout: Mutex<Option<Option<Duration>>>,
}

impl Stage for Serial {
    fn name(&self) -> &'static str {
        "serial"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        *self.read_timeout.lock().expect("not poisoned") = Some(scenario.read_timeout);
        let mut store = scenario.open_store()?;
        for item in &scenario.items {
            let started = Instant::now();
            let outcome = request(scenario, item);
            store.record(item.id, Lane(0), started, &outcome)?;
        }
        Ok(RunStats::new(1))
    }
}

pub(crate) fn request(scenario: &Scenario, item: &Item) -> Outcome {
    let io = |e: std::io::Error| Failure::from_io(&e);
    let stream =
        TcpStream::connect_timeout(&scenario.server, scenario.connect_timeout).map_err(io)?;
    stream.set_read_timeout(scenario.read_timeout).map_err(io)?;
    let mut conn = Conn::new(stream);
    let unexpected = |reply: Reply| Failure::new(ErrorKind::Protocol, reply.to_string());
    if scenario.phases == Phases::Two {
        conn.send(&Request::Head(item.id))?;
        match conn.recv()? {
            Reply::Ok => {}
            Reply::Nak(reason) => return Err(Failure::new(ErrorKind::Nak, reason)),
            other => return Err(unexpected(other)),
        }
        conn.send(&Request::Body(item.id, item.payload.clone()))?;
    } else {
        conn.send(&Request::Get(item.id, item.payload.clone()))?;
    }
    match conn.recv()? {
        Reply::Success(result) => Ok(result),
        Reply::Failure(reason) => Err(Failure::new(ErrorKind::Ko, reason)),
        other => Err(unexpected(other)),
    }
}

pub(crate) fn quick(db: Option<&Path>) -> Settings {
    Settings {
        items: 10,
        conns: 1,
        latency: "1ms".parse().expect("a valid spec"),
        db: db.map(Path::to_path_buf),
        ..Settings::default()
    }
}

/// Runs `settings`, which must be refused before anything starts, and
/// returns the refusal. On a thread with a deadline: settings that should
/// have been refused can make a run that never ends (a blackhole with no
/// read timeout).
#[track_caller]
fn refused(settings: &Settings) -> String {
    let (done, outcome) = std::sync::mpsc::channel();
    let settings = settings.clone();
    thread::spawn(move || {
        let _ = done.send(execute(&Serial::default(), &settings).map(|e| e.report));
    });
    match outcome.recv_timeout(IO_TIMEOUT) {
        Ok(Err(HarnessError::Usage(message))) => message,
        Ok(Err(other)) => panic!("expected a usage error, got {other}"),
        Ok(Ok(report)) => panic!("expected a refusal, got a run:\n{report}"),
        Err(_) => panic!("expected a refusal, the run was still going after {IO_TIMEOUT:?}"),
    }
}

#[test]
fn a_database_in_use_by_another_run_is_refused_and_the_first_run_stays_whole() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("shared.db");
    // The first run takes about a second: 100 items, one at a time, two
    // lines of 5 ms each.
    let first = thread::spawn({
        let db = db.clone();
        move || {
            let settings = Settings {
                items: 100,
                latency: "5ms".parse().expect("a valid spec"),
                ..quick(Some(&db))
            };
            execute(&Serial::default(), &settings)
        }
    });
    // Once it has recorded something, it is certainly running.
    let deadline = Instant::now() + IO_TIMEOUT;
    while Store::open(&DbTarget::File(db.clone()), Instant::now())
        .and_then(|store| store.rows())
        .map_or(true, |rows| rows.is_empty())
    {
        assert!(Instant::now() < deadline, "the first run recorded nothing");
        thread::sleep(Duration::from_millis(5));
    }
    let second = execute(&Serial::default(), &quick(Some(&db)));
    let first = first.join().expect("the first run does not panic");
    let first = first.expect("the first run finishes");
    assert!(first.report.is_sound(), "{}", first.report);
    assert_eq!(first.report.ok, 100, "{}", first.report);
    match second {
        Err(HarnessError::Usage(message)) => {
            assert!(message.contains("in use by another run"), "{message}")
        }
        Err(other) => panic!("expected a refusal, got {other}"),
        Ok(second) => panic!("the second run ran:\n{}", second.report),
    }
}

#[test]
fn replacing_an_earlier_runs_results_is_said() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("results.db");
    let first = execute(&Serial::default(), &quick(Some(&db))).expect("a run");
    assert!(first.report.notes.is_empty(), "{}", first.report);
    let second = execute(&Serial::default(), &quick(Some(&db))).expect("a run");
    let note = second.report.notes.join("\n");
    assert!(
        note.contains("held the results of run"),
        "{}",
        second.report
    );
    assert!(note.contains("(10 outcomes)"), "{note}");
}

#[test]
fn the_same_file_for_db_and_timeline_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("same.db");
    for timeline in [db.clone(), dir.path().join(".").join("same.db")] {
        let settings = Settings {
            timeline: Some(timeline),
            ..quick(Some(&db))
        };
        assert!(refused(&settings).contains("same file"));
    }
    assert!(!db.exists(), "nothing was written");
}

#[test]
fn a_timeline_that_cannot_be_written_is_refused_before_the_run() {
    let settings = Settings {
        timeline: Some("/nonexistent/dir/timeline.svg".into()),
        ..quick(None)
    };
    assert!(refused(&settings).contains("cannot be written"));
}

#[test]
fn faults_and_outages_with_an_external_server_are_refused() -> std::io::Result<()> {
    let server = server("1ms")?;
    let external = Settings {
        server: Some(server.addr()),
        ..quick(None)
    };
    let faults = Settings {
        faults: "nak=0.5".parse().expect("a valid spec"),
        ..external.clone()
    };
    assert!(refused(&faults).contains("--faults is for the embedded server"));
    let outage = Settings {
        outage: Some("10ms+10ms".parse().expect("a valid spec")),
        ..external
    };
    assert!(refused(&outage).contains("--outage is for the embedded server"));
    Ok(())
}

#[test]
fn a_blackhole_without_a_read_timeout_is_refused() {
    let settings = Settings {
        faults: "blackhole=0.1".parse().expect("a valid spec"),
        ..quick(None)
    };
    assert!(refused(&settings).contains("--faults blackhole needs a read timeout"));
}

#[test]
fn an_external_server_gets_a_default_read_timeout_and_a_note() -> std::io::Result<()> {
    let server = server("1ms")?;
    let stage = Serial::default();
    let settings = Settings {
        server: Some(server.addr()),
        ..quick(None)
    };
    let execution = execute(&stage, &settings).expect("a run");
    assert_eq!(
        *stage.read_timeout.lock().expect("not poisoned"),
        Some(Some(DEFAULT_EXTERNAL_READ_TIMEOUT))
    );
    assert!(
        execution
            .report
            .notes
            .iter()
            .any(|n| n.contains("no --read-timeout"))
    );
    Ok(())
}

#[test]
fn an_outage_is_reported_and_fails_no_item_silently() {
    let settings = Settings {
        items: 60,
        outage: Some("5ms+20ms".parse().expect("a valid spec")),
        ..quick(None)
    };
    let execution = execute(&Serial::default(), &settings).expect("a run");
    let report = &execution.report;
    assert_eq!((report.lost, report.wrong), (0, 0), "{report}");
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("the server was down from 5.0ms to 25.0ms"))
    );
    for kind in report.errors.keys() {
        assert!(["refused", "closed"].contains(&kind.as_str()), "{report}");
    }
}

#[test]
fn a_results_file_that_cannot_be_a_database_is_refused_before_the_run() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Someone else's database: a `run` table whose id is a number. Once
    // "Invalid column type Integer at index: 0, name: id", after the run.
    let foreign = dir.path().join("foreign.db");
    let conn = rusqlite::Connection::open(&foreign).expect("a database");
    conn.execute_batch(
        "CREATE TABLE outcomes (id INTEGER); CREATE TABLE run (id INTEGER);
         INSERT INTO run VALUES (7);",
    )
    .expect("someone else's tables");
    drop(conn);
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database").expect("a text file");
    for (path, words) in [
        (foreign.as_path(), "did not make"),
        (text.as_path(), "not an SQLite database"),
        // Like /dev/null and /dev/full, which once failed with "disk I/O
        // error" or "database or disk is full" (and left a journal in /dev).
        (dir.path(), "not a file"),
    ] {
        let line = refused(&quick(Some(path)));
        let named = format!("--db {}", path.display());
        assert!(line.starts_with(&named) && line.contains(words), "{line}");
    }
    let conn = rusqlite::Connection::open(&foreign).expect("still a database");
    let kept: i64 = conn
        .query_row("SELECT id FROM run", [], |row| row.get(0))
        .expect("the foreign table is still there");
    assert_eq!(kept, 7, "someone else's data is not replaced");
}
