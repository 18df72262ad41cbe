//! The process variant inside this test's own process, without libtest.
//!
//! `harness = false` (see Cargo.toml): libtest runs every test on a thread
//! of its own, and a process with threads must not fork (the harness's
//! `ForkedServer` and this stage's `spawn_worker` both refuse). Here `main`
//! is the only thread from start to end. The deadline is `alarm(2)`, not a
//! watchdog thread: a thread would make every later fork unsafe, while a
//! pending alarm is not inherited by the children and, unhandled, ends this
//! process with `SIGALRM` if a run ever hangs.
//!
//! The binary's own tests (`tests/it/binary.rs`) are the main ones; this
//! file adds what needs the verified report in-process: the conformance
//! battery and the rows of a run with a dead child.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use fork::processes::{spawn_worker, wait_for};
use fork::{CrashPlan, Forked, WorkerId, Workers};
use nix::sys::wait::WaitStatus;
use nix::unistd::alarm;
use testbed::conformance::{assert_conforms, assert_run_conforms, quick_settings};
use testbed::forked::{ForkedServer, thread_count};
use testbed::harness::execute;
use testbed::latency::LatencyModel;
use testbed::server::ServerConfig;
use testbed::stage::Scenario;
use testbed::store::{DbTarget, Lane, Store};
use testbed::workload::{Item, items};

/// Everything here together takes about a second; a hang fails the test.
const DEADLINE_SECS: u32 = 120;

fn main() -> ExitCode {
    assert_eq!(
        thread_count().ok(),
        Some(1),
        "main must start single-threaded"
    );
    alarm::set(DEADLINE_SECS);

    let tests: [(&str, fn()); 4] = [
        ("processes_conform", processes_conform),
        (
            "one_lane_and_one_db_connection_per_worker",
            one_lane_and_one_db_connection_per_worker,
        ),
        (
            "a_dead_child_leaves_its_items_lost_and_named",
            a_dead_child_leaves_its_items_lost_and_named,
        ),
        (
            "a_worker_holds_none_of_the_servers_pipes",
            a_worker_holds_none_of_the_servers_pipes,
        ),
    ];
    for (name, test) in tests {
        test();
        // A run must leave the process as it found it, or the next one
        // could not fork.
        assert_eq!(thread_count().ok(), Some(1), "{name} left threads behind");
        println!("test {name} ... ok");
    }
    alarm::cancel();
    ExitCode::SUCCESS
}

fn processes_conform() {
    assert_conforms(&Forked::processes());
}

fn one_lane_and_one_db_connection_per_worker() {
    let settings = quick_settings();
    let execution = assert_run_conforms(&Forked::processes(), &settings);
    let report = &execution.report;
    assert_eq!(report.db_connections, settings.conns as u64);
    assert_eq!(report.conns, settings.conns as u64);
    // One connection per worker: what the server accepted. Not its peak,
    // which depends on which worker gets a core first: on a busy machine a
    // worker can finish its items and close before the last one connects.
    assert_eq!(report.server_accepted, Some(settings.conns as u64));
    // Round-robin: item i ran in worker i % N, through a database connection
    // that recorded nothing else.
    for row in &execution.rows {
        assert_eq!(row.lane, Lane((row.id.0 % settings.conns as u64) as u32));
    }
    let exits = &report.stage_stats["exit_status"];
    assert_eq!(exits.as_array().map(Vec::len), Some(settings.conns));
    assert!(
        exits
            .as_array()
            .into_iter()
            .flatten()
            .all(|e| e == "exited 0"),
        "{exits}"
    );
}

fn a_dead_child_leaves_its_items_lost_and_named() {
    // 60 items over 4 workers: worker 2 has items 2, 6, ..., 58 (15 of
    // them) and dies after recording 4.
    let settings = quick_settings();
    let stage = Forked {
        workers: Workers::Processes {
            crash: Some(CrashPlan {
                worker: WorkerId::new(2),
                after: 4,
            }),
        },
    };
    let execution = execute(&stage, &settings).expect("the run finishes");
    let report = &execution.report;
    assert_eq!((report.lost, report.wrong), (11, 0), "{report}");
    assert!(!report.is_sound());
    let unfinished: Vec<u64> = (0..60).filter(|id| id % 4 == 2).skip(4).collect();
    assert_eq!(report.lost_ids, unfinished[..10], "{report}");
    assert_eq!(report.notes.len(), 1, "{report}");
    let note = &report.notes[0];
    assert!(note.starts_with("worker 2 (pid "), "{note}");
    assert!(
        note.ends_with("killed by SIGKILL: 11 of its 15 items have no row"),
        "{note}"
    );
    // The others finished: every item of theirs has its row.
    assert_eq!(report.ok, 60 - 11);
}

fn a_worker_holds_none_of_the_servers_pipes() {
    // The forked server serves until its keep-alive pipe reports end of
    // file, which needs every write end closed. A worker that inherited one
    // would keep the server alive (and `finish` waiting) for as long as the
    // worker lives, even after the parent gave up on it.
    let server = ForkedServer::start(ServerConfig {
        latency: LatencyModel::Fixed(Duration::from_millis(300)),
        ..ServerConfig::default()
    })
    .expect("the forked server starts");
    let dir = tempfile::tempdir().expect("a scratch directory");
    let db = DbTarget::File(dir.path().join("pipes.db"));
    drop(Store::create(&db, Instant::now()).expect("the database is created"));
    let work = items(2, 1);
    let scenario = Scenario::new(work.clone(), server.addr(), db.clone());
    let refs: Vec<&Item> = work.iter().collect();
    let pid = spawn_worker(&scenario, WorkerId::new(0), &refs, None).expect("fork");

    // Once the first row is there the child is past its start-up (where it
    // closes what it inherited), and its second item keeps it alive for
    // another 600 ms. (The sleep only paces the poll; the alarm bounds it.)
    loop {
        let store = Store::open(&db, Instant::now()).expect("open");
        let rows = store.rows().expect("rows").len();
        drop(store); // No SQLite connection may be open at the next fork.
        if rows > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let pipes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("the worker is alive")
        .filter_map(|entry| entry.ok())
        // Standard input, output and error are the test's own, shared on
        // purpose (and pipes whenever the test's output is piped).
        .filter(|entry| entry.file_name().to_str().and_then(|n| n.parse().ok()) > Some(2))
        .filter_map(|entry| std::fs::read_link(entry.path()).ok())
        .map(|target| target.display().to_string())
        .filter(|target| target.starts_with("pipe:"))
        .collect();
    let status = wait_for(pid).expect("waitpid");
    server.finish().expect("the server reports");
    assert!(
        pipes.is_empty(),
        "the worker holds {pipes:?}: the forked server's pipes leaked into it"
    );
    assert!(matches!(status, WaitStatus::Exited(_, 0)), "{status:?}");
}
