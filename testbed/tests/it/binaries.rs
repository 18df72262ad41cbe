//! The testbed's own binaries under the hostile user's table
//! (`testbed::testing::hostile`): bad durations, a stdout nobody reads or
//! that is full, and what each binary must refuse before it starts.

use std::time::Duration;

use testbed::testing::{
    assert_durations_refused, assert_full_stdout_reported, assert_quiet_on_closed_stdout, run_bin,
    usage_error,
};

const SLOW_SERVER: &str = env!("CARGO_BIN_EXE_slow-server");
const STACK_TIMELINES: &str = env!("CARGO_BIN_EXE_stack-timelines");
const DEADLINE: Duration = Duration::from_secs(30);

#[test]
fn every_duration_flag_refuses_huge_negative_and_malformed_values() {
    assert_durations_refused(SLOW_SERVER, &["--latency", "--idle-timeout"], DEADLINE);
}

#[test]
fn a_stdout_nobody_reads_ends_quietly_and_a_full_one_is_one_line_and_status_1() {
    // The server prints its address, finds nobody reading, and ends: it
    // once panicked "failed printing to stdout: Broken pipe".
    let listen = ["--listen", "127.0.0.1:0"];
    assert_quiet_on_closed_stdout(SLOW_SERVER, &listen, 0, DEADLINE);
    assert_full_stdout_reported(SLOW_SERVER, &listen, DEADLINE);
    for program in [SLOW_SERVER, STACK_TIMELINES] {
        assert_quiet_on_closed_stdout(program, &["--version"], 0, DEADLINE);
        // clap ignores a failed write: this once exited 0, printing nothing.
        assert_full_stdout_reported(program, &["--help"], DEADLINE);
    }
}

#[test]
fn each_binary_gives_its_own_name_with_its_version() {
    for (program, name) in [
        (SLOW_SERVER, "slow-server"),
        (STACK_TIMELINES, "stack-timelines"),
    ] {
        let output = run_bin(program, &["--version"], DEADLINE);
        let banner = String::from_utf8_lossy(&output.stdout);
        assert!(banner.starts_with(&format!("{name} ")), "{banner}");
    }
}

#[test]
fn stack_timelines_names_what_is_missing() {
    let line = usage_error(STACK_TIMELINES, &[], DEADLINE);
    assert!(
        line.contains("--out") && line.contains("RUN.json"),
        "{line}"
    );
}

#[test]
fn stack_timelines_refuses_to_overwrite_one_of_its_inputs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let run = dir.path().join("tl.json");
    let text = "not read: refused before";
    std::fs::write(&run, text).expect("a file to keep");
    let run = run.to_string_lossy().into_owned();
    // The same file by another name, too.
    let other = format!("{}/./tl.json=label", dir.path().display());
    for args in [["--out", &run, &run], ["--out", &run, &other]] {
        let line = usage_error(STACK_TIMELINES, &args, DEADLINE);
        assert!(line.contains("also an input"), "{line}");
    }
    assert_eq!(std::fs::read_to_string(&run).ok().as_deref(), Some(text));
}
