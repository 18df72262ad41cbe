//! `05-pool` as a user runs it: flags, exit statuses, JSON, and the
//! chapter's runs that a test can afford.

use std::time::Duration;

use testbed::testing::{json_report, run_bin, run_timed_bin, smoke_run, usage_error};

const BIN: &str = env!("CARGO_BIN_EXE_05-pool");
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn json_is_one_object_with_the_pool_figures() {
    let report = smoke_run(BIN, "pool", 40, &["--latency", "1ms"], DEADLINE);
    assert_eq!(report["server_accepted"], 20);
    for key in ["backend", "pool", "queue", "knobs", "loop"] {
        assert!(report["stage_stats"][key].is_string(), "stage_stats.{key}");
    }
}

#[test]
fn hangs_drops_and_garbage_with_a_read_timeout() {
    // The chapter's run with hangs, drops and garbage, with a 150 ms read
    // timeout instead of 50 ms: this is a debug build sharing the machine
    // with the other tests, which can delay a 2 ms reply by more than
    // 50 ms, and a late reply must not count as a hang (beyond 150 ms, the
    // run goes again with more patience: `run_timed_bin`). The release
    // binary runs the command as it is: see chapter 5.
    let args = [
        "--items",
        "2000",
        "--conns",
        "50",
        "--latency",
        "2ms",
        "--faults",
        "hang=0.02,drop=0.02,garbage=0.02",
        "--read-timeout",
        "150ms",
        "--json",
    ];
    let output = run_timed_bin(BIN, &args, DEADLINE);
    assert!(output.status.success(), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["lost"], 0);
    assert_eq!(report["wrong"], 0);
    assert!(report["errors"]["timeout"].as_u64() > Some(0));
    assert_eq!(
        report["errors"]["timeout"],
        report["expected_errors"]["timeout"]
    );
    assert!(report["elapsed_s"].as_f64() < Some(5.0), "{report}");
}

#[test]
fn max_uses_10_opens_about_one_connection_per_10_items() {
    // The chapter's `--max-uses 10` run, at 1 ms instead of 10 ms: the
    // count does not depend on the latency. Each connection carries at
    // most 10 requests, and only the ones still open at the end (at most
    // `--conns`) carry fewer.
    let args = [
        "--max-uses",
        "10",
        "--items",
        "2000",
        "--latency",
        "1ms",
        "--json",
    ];
    let output = run_bin(BIN, &args, DEADLINE);
    assert!(output.status.success(), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["ok"], 2000);
    let accepted = report["server_accepted"].as_u64().expect("embedded server");
    assert!((200..=220).contains(&accepted), "{accepted} connections");
}

#[test]
fn knobs_that_do_not_fit_are_one_line_and_status_2() {
    for (args, says) in [
        (&["--min-idle", "30", "--conns", "20"][..], "min_idle"),
        (&["--max-uses", "0"][..], "--max-uses"),
        (&["--idle-timeout", "soon"][..], "--idle-timeout"),
        (&["--checkout-timeout", "0s"][..], "--checkout-timeout"),
        (&["--backend", "kqueue"][..], "select, poll or epoll"),
    ] {
        let stderr = usage_error(BIN, args, DEADLINE);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn a_hang_without_a_read_timeout_is_refused_up_front() {
    let output = run_bin(BIN, &["--faults", "hang=0.1"], DEADLINE);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--read-timeout"));
}

#[test]
fn a_negative_knob_names_its_flag() {
    // Without `allow_hyphen_values`, clap takes "-5ms" for an unknown flag
    // and says "unexpected argument '-5ms' found", naming no flag.
    for (flag, value) in [
        ("--idle-timeout", "-5ms"),
        ("--checkout-timeout", "-1s"),
        ("--max-uses", "-1"),
        ("--min-idle", "-1"),
    ] {
        let stderr = usage_error(BIN, &[flag, value], DEADLINE);
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
    }
}

#[test]
fn checkouts_that_gave_up_on_an_unreachable_server_say_so() {
    // A port that was just free: nothing listens there any more.
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let server = addr.to_string();
    let output = run_bin(
        BIN,
        &[
            "--server",
            &server,
            "--items",
            "3",
            "--checkout-timeout",
            "300ms",
            "--json",
        ],
        DEADLINE,
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let report = json_report(&output);
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("the server could not be reached: every connect failed"),
        "{notes}"
    );
}

#[test]
fn no_two_items_overlap_on_a_connections_track_of_the_trace() {
    // The pool hands a connection to its next call in the same turn as it
    // reads the reply: an end stamped when the caller records the call is
    // later than the next call's start, and a trace viewer drops one of
    // two overlapping slices on a track.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("p.trace.json");
    let path_arg = path.to_string_lossy().into_owned();
    let args = [
        "--items",
        "60",
        "--conns",
        "4",
        "--latency",
        "1ms",
        "--timeline",
        &path_arg,
    ];
    let output = run_bin(BIN, &args, DEADLINE);
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&path).expect("the trace was written");
    let trace: serde_json::Value = serde_json::from_str(&text).expect("the trace is JSON");
    let mut tracks: std::collections::BTreeMap<u64, Vec<(u64, u64)>> = Default::default();
    for event in trace["traceEvents"].as_array().expect("traceEvents") {
        if event["cat"] == "item" {
            let at = |key: &str| event[key].as_u64().expect("µs");
            tracks
                .entry(at("tid"))
                .or_default()
                .push((at("ts"), at("ts") + at("dur")));
        }
    }
    assert_eq!(tracks.values().map(Vec::len).sum::<usize>(), 60);
    for (tid, mut slices) in tracks {
        slices.sort_unstable();
        for pair in slices.windows(2) {
            assert!(
                pair[1].0 >= pair[0].1,
                "track {tid}: an item starts at {} us, before the one before it ends at {} us",
                pair[1].0,
                pair[0].1
            );
        }
    }
}
