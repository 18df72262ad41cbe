//! The `race` binary as a user runs it: rows for every contender asked
//! for, the report's keys plus the client's CPU time, the files it writes,
//! and the hidden `contender` subcommand.

use std::time::Duration;

use testbed::report::CONTRACT_KEYS;
use testbed::testing::{json_report, run_bin, usage_error};

const RACE: &str = env!("CARGO_BIN_EXE_race");
const DEADLINE: Duration = Duration::from_secs(60);

/// A tiny race: 20 items at 2 ms, 100 at zero latency, 4 connections.
const TINY: [&str; 6] = ["--items", "20", "--overhead-items", "100", "--conns", "4"];

#[test]
fn json_has_a_row_per_contender_with_the_report_keys() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let out_arg = out.path().to_string_lossy().into_owned();
    let mut args = TINY.to_vec();
    args.extend([
        "--only",
        "sync,fork,threads,tokio,tokio-ct",
        "--json",
        "--rounds",
        "2",
        "--out",
        &out_arg,
    ]);
    let output = run_bin(RACE, &args, DEADLINE);
    assert!(output.status.success(), "{output:?}");
    let race = json_report(&output);
    let rows = race["rows"].as_array().expect("rows is an array");
    let stages: Vec<&str> = rows.iter().filter_map(|r| r["stage"].as_str()).collect();
    assert_eq!(stages, ["sync", "fork", "threads", "tokio", "tokio-ct"]);
    assert!(race["steal"].is_f64(), "Linux says how much was stolen");
    for row in rows {
        let ours = ["client_cpu_s", "client_cpu_us_per_item"];
        for key in CONTRACT_KEYS.into_iter().chain(ours) {
            assert!(row.get(key).is_some(), "{}: no {key}", row["stage"]);
            assert!(
                row["overhead"].get(key).is_some(),
                "{}: no overhead.{key}",
                row["stage"]
            );
        }
        assert_eq!(row["lost"], 0);
        assert_eq!(row["overhead"]["lost"], 0);
        assert_eq!(row["items"], 20);
        assert_eq!(row["overhead"]["items"], 100);
        // The median of two rounds, and both rounds listed.
        assert_eq!(
            row["rounds"]["latency_bound"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(row["rounds"]["overhead"].as_array().map(Vec::len), Some(2));
        // Each contender had a server of its own, so its peak is its own.
        let peak = row["server_peak_conns"]
            .as_u64()
            .expect("a forked server's peak");
        assert!((1..=4).contains(&peak), "{row}");
    }
    for file in ["race.json", "race.md", "race.svg", "timelines/tokio-ct.svg"] {
        assert!(out.path().join(file).is_file(), "{file} was not written");
    }
    // The other rounds' timelines are gone: one picture per contender.
    let timelines = std::fs::read_dir(out.path().join("timelines"))
        .expect("the timelines folder")
        .count();
    assert_eq!(timelines, 5);
    // Each says how it was made, including fork's, which ran in a process
    // of its own.
    for name in stages {
        let path = out.path().join(format!("timelines/{name}.svg"));
        let svg = std::fs::read_to_string(&path).expect("a timeline per contender");
        // The caption wraps, but never inside a word.
        assert!(svg.contains(&format!("{name}:")), "{name}'s caption");
    }
    let svg = std::fs::read_to_string(out.path().join("race.svg")).expect("the chart");
    assert!(svg.contains("tokio-ct") && svg.ends_with("</svg>\n"));
    let md = std::fs::read_to_string(out.path().join("race.md")).expect("the table");
    assert!(md.contains("| tokio-ct |") && md.contains("--only sync,fork,threads,tokio,tokio-ct"));

    // The saved race remakes the same table without racing again.
    let again = tempfile::tempdir().expect("a temporary directory");
    let saved = out.path().join("race.json").to_string_lossy().into_owned();
    let again_arg = again.path().to_string_lossy().into_owned();
    let output = run_bin(RACE, &["--replot", &saved, "--out", &again_arg], DEADLINE);
    assert!(output.status.success(), "{output:?}");
    let remade = std::fs::read_to_string(again.path().join("race.md")).expect("the table");
    assert_eq!(remade, md);
    assert!(again.path().join("race.svg").is_file());
}

#[test]
fn progress_goes_to_stderr() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let out_arg = out.path().to_string_lossy().into_owned();
    let mut args = TINY.to_vec();
    args.extend(["--only", "threads", "--rounds", "1", "--out", &out_arg]);
    let output = run_bin(RACE, &args, DEADLINE);
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.matches("race: [").count(), 2, "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("threads") && stdout.contains("items/s"),
        "{stdout}"
    );
}

#[test]
fn an_unknown_contender_is_a_usage_error() {
    let stderr = usage_error(RACE, &["--only", "sync,nope"], DEADLINE);
    assert!(
        stderr.contains("nope") && stderr.contains("tokio-ct"),
        "{stderr}"
    );
}

#[test]
fn bad_race_flags_are_one_line_and_status_2() {
    for (args, flag) in [
        // Once a panic in the select rows ("a pool of no connections").
        (&["--conns", "0", "--only", "select-epoll"][..], "--conns"),
        (&["--conns", "-2"], "--conns"),
        (&["--items", "0"], "--items"),
        (&["--overhead-items", "-1"], "--overhead-items"),
        (&["--items", "18446744073709551615"], "--items"),
        (&["--rounds", "0"], "--rounds"),
    ] {
        let line = usage_error(RACE, args, DEADLINE);
        assert!(line.contains(flag), "{args:?}: {line}");
    }
}

#[test]
fn the_contender_subcommand_prints_one_lap() {
    // Without --server the harness embeds a server, which is fine here:
    // this checks the plumbing, not the CPU figure.
    let output = run_bin(
        RACE,
        &["contender", "tokio-ct", "--items", "10", "--latency", "1ms"],
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    let lap = json_report(&output);
    assert_eq!(lap["stage"], "tokio-ct");
    assert_eq!(lap["ok"], 10);
    assert!(lap["client_cpu_s"].as_f64().is_some_and(|s| s >= 0.0));
}

#[test]
fn a_contender_named_twice_is_refused_before_the_first_lap() {
    // Once: every lap ran, then "the slow server: none was forked for
    // this run", and the results were lost.
    let stderr = usage_error(RACE, &["--only", "sync,sync"], DEADLINE);
    assert!(stderr.contains("'sync' is named twice"), "{stderr}");
}

#[test]
fn a_uring_row_asked_for_where_io_uring_is_forbidden_is_refused_before_the_first_lap() {
    let mut command = std::process::Command::new(RACE);
    command
        .args(TINY)
        .args(["--only", "sync,uring", "--rounds", "1"]);
    testbed::testing::forbid_io_uring(&mut command, libc::EPERM);
    let output = testbed::testing::run_command(command, DEADLINE);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--only: uring cannot run here") && stderr.contains("EPERM"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn race_json_names_the_tool_that_counted_the_calls() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let out_arg = out.path().to_string_lossy().into_owned();
    let mut args = TINY.to_vec();
    args.extend(["--only", "tokio-ct", "--rounds", "1", "--out", &out_arg]);
    let output = run_bin(RACE, &args, DEADLINE);
    assert!(output.status.success(), "{output:?}");
    let json = std::fs::read_to_string(out.path().join("race.json")).expect("race.json");
    let race: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let md = std::fs::read_to_string(out.path().join("race.md")).expect("race.md");
    let calls = race["rows"][0]["syscalls_per_item"].as_f64();
    match race["syscall_counter"].as_str() {
        Some("perf") => assert!(md.contains("counted by `perf stat"), "{md}"),
        Some("strace") => {
            assert!(
                md.contains("counted by `strace -c -f`") && !md.contains("perf"),
                "{md}"
            )
        }
        None => assert!(
            calls.is_none() && md.contains("no tool could count"),
            "{md}"
        ),
        Some(other) => panic!("an unknown counter {other}"),
    }
    assert_eq!(
        calls.is_some(),
        race["syscall_counter"].is_string(),
        "{json}"
    );
}
