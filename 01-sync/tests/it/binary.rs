//! `01-sync` as a user runs it: flags, exit statuses, JSON.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testbed::store::{DbTarget, Store};
use testbed::testing::{
    KillOnDrop, Signal, json_report, run_bin, run_bin_interrupted, smoke_run, timeline_of,
    usage_error,
};

const BIN: &str = env!("CARGO_BIN_EXE_01-sync");
const DEADLINE: Duration = Duration::from_secs(30);

#[test]
fn json_is_one_object_with_the_contract_keys() {
    let report = smoke_run(BIN, "sync", 20, &["--latency", "1ms"], DEADLINE);
    assert_eq!(report["db_connections"], 1);
}

#[test]
fn a_bad_flag_is_one_line_and_status_2() {
    for args in [
        &["--latency", "soon"][..],
        &["--faults", "boom=1"],
        &["--phases", "3"],
        &["--items", "many"],
        &["--no-such-flag"],
    ] {
        usage_error(BIN, args, DEADLINE);
    }
}

#[test]
fn huge_negative_and_repeated_values_are_one_line_naming_the_flag() {
    for (args, flag) in [
        // A list that cannot be held: once a panic, once an abort.
        (&["--items", "18446744073709551615"][..], "--items"),
        (&["--items", "4294967296"], "--items"),
        // Negative values: once "unexpected argument '-1' found".
        (&["--items", "-1"], "--items"),
        (&["--latency", "-1ms"], "--latency"),
        (&["--read-timeout", "-5ms"], "--read-timeout"),
        // A fault given twice: once the last one silently won.
        (&["--faults", "nak=0.1,nak=0.2"], "--faults"),
    ] {
        let line = usage_error(BIN, args, DEADLINE);
        assert!(line.contains(flag), "{args:?}: {line}");
    }
}

#[test]
fn hang_without_a_read_timeout_is_refused_up_front() {
    let output = run_bin(BIN, &["--faults", "hang=0.1"], DEADLINE);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--read-timeout"));
}

#[test]
fn an_unreachable_server_fails_every_item_loses_none_and_exits_1() {
    // Port 1 on loopback: nothing listens there, connects are refused.
    let output = run_bin(
        BIN,
        &["--server", "127.0.0.1:1", "--items", "5", "--json"],
        DEADLINE,
    );
    assert_eq!(output.status.code(), Some(1), "no item reached a server");
    let report = json_report(&output);
    assert_eq!(report["errors"]["refused"], 5);
    assert_eq!(report["lost"], 0, "refused items are failures, not losses");
    assert!(report["efficiency"].is_null(), "{report}");
    let problem = report["problems"][0].as_str().unwrap_or_default();
    assert!(
        problem.starts_with("no item reached a working SLOW/1 server"),
        "{report}"
    );
}

#[test]
fn a_server_that_does_not_speak_slow1_exits_1_without_an_efficiency() {
    // An HTTP server: it answers every line with an HTTP status and closes.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = listener.local_addr().expect("an address").to_string();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
            );
        }
    });
    let output = run_bin(
        BIN,
        &["--server", &addr, "--items", "5", "--json"],
        DEADLINE,
    );
    assert_eq!(output.status.code(), Some(1));
    let report = json_report(&output);
    assert_eq!(report["errors"]["protocol"], 5, "{report}");
    assert!(report["efficiency"].is_null(), "once 2845.2%: {report}");
    assert!(report["problems"][0].as_str().is_some(), "{report}");
}

#[test]
fn writes_a_timeline() {
    let svg = timeline_of(BIN, &["--items", "10", "--latency", "1ms"], DEADLINE);
    assert_eq!(svg.matches("<title>item").count(), 10);
    assert!(
        svg.contains("10 items, 1 lane<"),
        "one connection, one lane"
    );
}

#[test]
fn a_reader_that_stops_early_is_not_a_crash() {
    // `01-sync | head -1`: the pipe's reader is gone before the report.
    let mut child = KillOnDrop::spawn(
        Command::new(BIN)
            .args(["--items", "3", "--latency", "1ms"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .expect("the binary starts");
    drop(child.stdout.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waitpid works") {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("01-sync still running after {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stderr = String::new();
    let _ = child
        .stderr
        .take()
        .map(|mut e| e.read_to_string(&mut stderr));
    assert!(status.success(), "{status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Rows in a results file so far (0 before it has any).
fn rows(db: &std::path::Path) -> usize {
    Store::open(&DbTarget::File(db.to_owned()), Instant::now())
        .and_then(|store| store.rows())
        .map_or(0, |rows| rows.len())
}

#[test]
fn an_interrupted_run_says_so_with_what_it_recorded_and_where() {
    for (signal, status) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let db = dir.path().join("i.db");
        let db_arg = db.to_string_lossy().into_owned();
        let timeline = dir.path().join("i.html");
        let timeline_arg = timeline.to_string_lossy().into_owned();
        // 3,000 items one at a time, 40 ms each: two minutes, never finished.
        let args = [
            "--items",
            "3000",
            "--latency",
            "20ms",
            "--db",
            &db_arg,
            "--timeline",
            &timeline_arg,
        ];
        // Two rows at least, so that "in flight" below is the stage's
        // count, not the items'.
        let output = run_bin_interrupted(BIN, &args, signal, || rows(&db) >= 2, DEADLINE);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{signal}: {stderr}");
        let recorded = rows(&db);
        let first = stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("sync: interrupted by {signal} after ")),
            "{first}"
        );
        assert!(
            first.contains(&format!("{recorded} of 3000 items recorded in {db_arg}")),
            "{recorded} rows: {first}"
        );
        // Then the report of what was recorded, verified.
        assert!(
            stderr.contains(&format!("sync: {recorded} items in")),
            "{stderr}"
        );
        // Its one connection, not the default --conns 20 of other stages.
        assert!(stderr.contains(" = 1 in flight"), "{stderr}");
        assert!(stderr.contains("lost                0"), "{stderr}");
        // The timeline asked for is not drawn, and that is said.
        assert!(
            stderr.contains(&format!("timeline     {timeline_arg} not written")),
            "{stderr}"
        );
        assert!(!timeline.exists());
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn a_stalled_run_says_what_it_waits_on_and_how_to_bound_it() {
    // A server that never answers; the watchdog speaks after 200 ms (ten
    // seconds outside tests), well before the 1 s read timeout ends it.
    let config = testbed::server::ServerConfig {
        faults: "hang=1".parse().expect("a valid spec"),
        ..testbed::server::ServerConfig::default()
    };
    let server = testbed::server::SlowServer::spawn(config).expect("a server");
    let addr = server.addr().to_string();
    let args = [
        "--server",
        &addr,
        "--items",
        "1",
        "--read-timeout",
        "1s",
        "--stall-after",
        "200ms",
    ];
    let output = run_bin(BIN, &args, DEADLINE);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stall = stderr
        .lines()
        .find(|line| line.starts_with("sync: nothing recorded for"))
        .unwrap_or_else(|| panic!("no word of the stall: {stderr}"));
    for words in [
        "(0 of 1 items so far)",
        &format!("1 of 1 connections to {addr} wait for a reply"),
        "fails as `timeout` after 1.00s (--read-timeout)",
    ] {
        assert!(stall.contains(words), "{words:?} in {stall}");
    }
}
