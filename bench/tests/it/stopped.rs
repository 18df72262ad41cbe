//! A race cut short keeps what it did: SIGTERM after the first lap, and
//! the table, `race.json` and one timeline per contender are still there,
//! with one line that says so. And a race where io_uring is forbidden
//! leaves the `uring` row out with a note, before the first lap.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use testbed::testing::forbid_io_uring;

const RACE: &str = env!("CARGO_BIN_EXE_race");
const DEADLINE: Duration = Duration::from_secs(60);
const POLL: Duration = Duration::from_millis(10);

/// A race in the background, its stdout and stderr in files of `dir`,
/// killed if a test ends before it does.
struct Background {
    child: Child,
    dir: PathBuf,
}

impl Background {
    fn start(mut command: Command, dir: &Path) -> Background {
        let file = |name: &str| File::create(dir.join(name)).expect("an output file");
        let child = command
            .stdout(file("stdout"))
            .stderr(file("stderr"))
            .spawn()
            .expect("the race starts");
        Background {
            child,
            dir: dir.to_owned(),
        }
    }

    /// Waits, polling, until `path` exists; panics if the race ends first
    /// or after the deadline.
    fn wait_for(&mut self, path: &Path) {
        let start = Instant::now();
        while !path.exists() {
            let ended = self.child.try_wait().expect("a child to wait for");
            assert!(
                ended.is_none() && start.elapsed() < DEADLINE,
                "no {} ({ended:?}): {}",
                path.display(),
                self.read("stderr")
            );
            std::thread::sleep(POLL);
        }
    }

    fn signal(&self, signal: Signal) {
        kill(self.pid(), signal).expect("the race is alive");
    }

    /// Sends `signal` to the race's whole process group, as Ctrl-C at a
    /// terminal does (the race must lead a group: `process_group(0)`).
    fn signal_group(&self, signal: Signal) {
        killpg(self.pid(), signal).expect("the race's group is alive");
    }

    fn pid(&self) -> Pid {
        Pid::from_raw(i32::try_from(self.child.id()).expect("a pid fits an i32"))
    }

    /// Its exit status, within the deadline.
    fn finish(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("a child to wait for") {
                return status;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "still running: {}",
                self.read("stderr")
            );
            std::thread::sleep(POLL);
        }
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `race` with a tiny workload and many rounds (a few seconds at least),
/// writing into `dir/out`.
fn long_race(dir: &Path, more: &[&str]) -> Command {
    let mut command = Command::new(RACE);
    command
        .args(["--items", "20", "--overhead-items", "20", "--conns", "4"])
        .args(["--rounds", "50", "--out"])
        .arg(dir.join("out"))
        .args(more);
    command
}

#[test]
fn a_race_stopped_by_sigterm_keeps_the_laps_it_finished() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("out");
    let mut race = Background::start(
        long_race(dir.path(), &["--only", "threads,tokio-ct"]),
        dir.path(),
    );
    // A contender's timeline appears when its first lap has finished.
    race.wait_for(&out.join("timelines/threads.svg"));
    race.signal(Signal::SIGTERM);
    let status = race.finish();
    let stderr = race.read("stderr");
    // 128 + 15, as a stage stopped by SIGTERM ends.
    assert_eq!(status.code(), Some(143), "{stderr}");
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("race: interrupted"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains("by SIGTERM")
            && said[0].contains("finished laps kept")
            && said[0].contains(&out.display().to_string()),
        "{stderr}"
    );
    let stdout = race.read("stdout");
    assert!(
        stdout.contains("threads") && stdout.contains("Stopped early by SIGTERM"),
        "{stdout}"
    );

    let json = std::fs::read_to_string(out.join("race.json")).expect("race.json was written");
    let saved: serde_json::Value = serde_json::from_str(&json).expect("race.json is JSON");
    assert_eq!(saved["interrupted"], "SIGTERM");
    let rows = saved["rows"].as_array().expect("rows");
    assert_eq!(rows[0]["stage"], "threads");
    let rounds = rows[0]["rounds"]["latency_bound"]
        .as_array()
        .map_or(0, Vec::len);
    assert!((1..50).contains(&rounds), "{rounds} rounds of 50");
    for file in ["race.md", "race-split.md", "race.svg"] {
        assert!(out.join(file).is_file(), "{file} was not written");
    }
    // One picture per contender that raced, however many rounds it ran.
    let mut pictures: Vec<String> = std::fs::read_dir(out.join("timelines"))
        .expect("the timelines folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    pictures.sort();
    let expected: Vec<String> = rows
        .iter()
        .map(|r| format!("{}.svg", r["stage"].as_str().expect("a name")))
        .collect();
    assert!(
        pictures == expected || pictures == ["threads.svg", "tokio-ct.svg"],
        "{pictures:?}"
    );
}

#[test]
fn ctrl_c_lets_the_lap_in_progress_finish_whole() {
    // 02-fork runs in a process of its own, with worker processes: once,
    // Ctrl-C reached them too, and the lap in progress was kept with 118
    // of its 200 items lost.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("out");
    let mut command = long_race(dir.path(), &["--only", "fork"]);
    // A group of its own, as a shell gives a job it starts.
    command.process_group(0);
    let mut race = Background::start(command, dir.path());
    race.wait_for(&out.join("timelines/fork.svg"));
    race.signal_group(Signal::SIGINT);
    let status = race.finish();
    let stderr = race.read("stderr");
    // 128 + 2.
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("race: interrupted by SIGINT"), "{stderr}");
    // The signal usually lands while the overhead lap runs, which then
    // finishes whole; now and then it lands while that lap's process is
    // being started, before it has a group of its own, and the lap is cut
    // short: then it is dropped, fork has no row without both laps, and
    // the race says there was nothing to keep. Either way, no lap is kept
    // with items lost.
    if stderr.contains("before any contender finished both workloads") {
        assert!(!out.join("race.json").exists(), "{stderr}");
        return;
    }
    let json = std::fs::read_to_string(out.join("race.json")).expect("race.json was written");
    let saved: serde_json::Value = serde_json::from_str(&json).expect("race.json is JSON");
    let row = &saved["rows"][0];
    assert_eq!(row["stage"], "fork", "{json}");
    for rounds in ["latency_bound", "overhead"] {
        let laps = row["rounds"][rounds].as_array().map_or(0, Vec::len);
        assert!(laps >= 1, "{rounds}: {json}");
    }
    // Every lap that finished is whole, the one in progress at the signal
    // included: each progress line says it lost nothing.
    let laps: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("items/s in"))
        .collect();
    assert!(!laps.is_empty(), "{stderr}");
    for lap in laps {
        assert!(lap.contains("lost 0, wrong 0"), "{lap}\n{stderr}");
    }
    assert_eq!(row["lost"], 0, "{json}");
    assert_eq!(row["overhead"]["lost"], 0, "{json}");
}

#[test]
fn where_io_uring_is_forbidden_the_default_race_leaves_uring_out_with_a_note() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("out");
    let mut command = long_race(dir.path(), &[]);
    forbid_io_uring(&mut command, libc::EPERM);
    let mut race = Background::start(command, dir.path());
    // The first contender's first lap, then stop: the note is written
    // before any lap, and the table of what finished carries it.
    race.wait_for(&out.join("timelines/sync.svg"));
    race.signal(Signal::SIGTERM);
    let status = race.finish();
    let stderr = race.read("stderr");
    assert_eq!(status.code(), Some(143), "{stderr}");
    let note = stderr.find("note: uring is not in this race: io_uring is not allowed here");
    let first_lap = stderr.find("race: [");
    assert!(
        note.is_some() && note < first_lap,
        "the note comes before the first lap: {stderr}"
    );
    let json = std::fs::read_to_string(out.join("race.json")).expect("race.json was written");
    let saved: serde_json::Value = serde_json::from_str(&json).expect("race.json is JSON");
    let left_out = saved["left_out"].as_array().expect("left_out");
    assert_eq!(left_out.len(), 1, "{left_out:?}");
    assert!(
        left_out[0]
            .as_str()
            .is_some_and(|n| n.starts_with("uring is not in this race")),
        "{left_out:?}"
    );
    let md = std::fs::read_to_string(out.join("race.md")).expect("race.md was written");
    assert!(md.contains("Left out: uring is not in this race"), "{md}");
}
