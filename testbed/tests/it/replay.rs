//! The `report` binary: a recorded run reread from its database gives the
//! page the run wrote, the file is never written, and a file that holds no
//! run is refused in one line.

use std::fs::File;
use std::path::Path;
use std::process::Output;
use std::time::Duration;

use testbed::harness::execute;
use testbed::testing::run_bin;

use crate::harness::{Serial, quick};

const DEADLINE: Duration = Duration::from_secs(60);

fn report(args: &[&str]) -> Output {
    run_bin(env!("CARGO_BIN_EXE_report"), args, DEADLINE)
}

/// A refusal: exit 2, one line on stderr that says `what`.
#[track_caller]
fn assert_refused(output: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(what), "{stderr}");
}

#[test]
fn a_reread_run_gives_the_page_the_run_wrote_and_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("run.db");
    let (live, again) = (dir.path().join("live.html"), dir.path().join("again.html"));
    let mut settings = quick(Some(&db));
    settings.faults = "ko=0.2".parse().unwrap();
    // With a timeline asked for, the server logs its service times.
    settings.timeline = Some(live.clone());
    let execution = execute(&Serial::default(), &settings).expect("the run finishes");
    execution.write_timeline(&live, None).unwrap();
    let before = std::fs::read(&db).unwrap();

    let db_arg = db.to_str().unwrap();
    let output = report(&["--db", db_arg, "--timeline", again.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("serial: 10 items"));
    assert_eq!(
        std::fs::read_to_string(&again).unwrap(),
        std::fs::read_to_string(&live).unwrap(),
        "the page from the database is the page of the run"
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file is unchanged");
    let beside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("run.db"))
        .collect();
    assert_eq!(beside, ["run.db"], "no journal or shared memory was made");

    let id = testbed::store::Store::open_read_only(&db)
        .unwrap()
        .run_id()
        .unwrap()
        .unwrap();
    assert!(report(&["--db", db_arg, "--run", &id]).status.success());
    assert_refused(
        &report(&["--db", db_arg, "--run", "1-2-3"]),
        "not run 1-2-3",
    );
}

#[test]
fn missing_corrupt_foreign_and_locked_files_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let arg = |p: &Path| p.to_str().unwrap().to_owned();

    assert_refused(&report(&["--db", &arg(&path("none.db"))]), "cannot open");

    std::fs::write(path("corrupt.db"), [0x5a; 4096]).unwrap();
    assert_refused(
        &report(&["--db", &arg(&path("corrupt.db"))]),
        "not an SQLite database",
    );

    let foreign = rusqlite::Connection::open(path("foreign.db")).unwrap();
    foreign
        .execute_batch("CREATE TABLE notes (text TEXT);")
        .unwrap();
    drop(foreign);
    assert_refused(
        &report(&["--db", &arg(&path("foreign.db"))]),
        "did not make",
    );

    // A run holds an exclusive lock on its file for its whole life.
    let db = path("busy.db");
    execute(&Serial::default(), &quick(Some(&db))).expect("the run finishes");
    let held = File::open(&db).unwrap();
    held.try_lock().unwrap();
    assert_refused(&report(&["--db", &arg(&db)]), "in use by a run");
    drop(held);
    assert!(report(&["--db", &arg(&db)]).status.success());
}

#[test]
fn a_lock_let_go_a_moment_after_the_run_ended_is_waited_for() {
    // A run's lock belongs to its open file, which a child forked by the
    // run's process shares until it execs: it can outlive the run by a
    // moment. `report` waits for it rather than call the run unfinished.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("run.db");
    execute(&Serial::default(), &quick(Some(&db))).expect("the run finishes");
    let held = File::open(&db).unwrap();
    held.try_lock().unwrap();
    let letting_go = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        drop(held);
    });
    let output = report(&["--db", &db.to_string_lossy()]);
    letting_go.join().unwrap();
    assert!(
        output.status.success(),
        "a lock let go after 200 ms: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
