//! A stage blocked on a lock: the watchdog says so, and with
//! `--stall-ends` the run ends there. The run exits the process, so it
//! runs in a child: this test binary again, with [`CHILD`] set.

use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use testbed::cli::Settings;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::watchdog::lock::LOCKED;

/// Set in the child's environment: run the blocked stage.
const CHILD: &str = "TESTBED_WATCHDOG_LOCKED_CHILD";

/// A stage whose run waits for a `std::sync::Mutex` another thread holds
/// and never releases: what a guard held across an `.await` does to a
/// one-thread loop.
struct Locked;

impl Stage for Locked {
    fn name(&self) -> &'static str {
        "locked"
    }

    fn run(&self, _: &Scenario) -> Result<RunStats, StageError> {
        let lock = Arc::new(Mutex::new(()));
        let (held_tx, held_rx) = mpsc::channel();
        let holder = lock.clone();
        std::thread::spawn(move || {
            let _guard = holder.lock();
            let _ = held_tx.send(());
            loop {
                std::thread::park();
            }
        });
        let _ = held_rx.recv();
        // Blocks in futex for good; the watchdog ends the process.
        drop(lock.lock());
        Ok(RunStats::new(1))
    }
}

#[test]
fn a_stage_blocked_on_a_lock_is_named_and_the_stall_ends_the_run() {
    if std::env::var_os(CHILD).is_some() {
        let settings = Settings {
            items: 1,
            stall_after: Duration::from_millis(200),
            stall_ends: true,
            json: true,
            ..Settings::default()
        };
        let _ = testbed::harness::main(&Locked, &settings);
        unreachable!("the watchdog ends the process at the stall");
    }
    let mut child = Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            "stall_ends::a_stage_blocked_on_a_lock_is_named_and_the_stall_ends_the_run",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the child starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the stalled run did not end within 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("piped"), &mut stderr)
        .expect("stderr reads");
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("locked: nothing recorded for"),
        "the stall is printed: {stderr}"
    );
    assert!(stderr.contains(LOCKED), "{stderr}");
    assert!(stderr.contains("--stall-ends"), "{stderr}");
}
