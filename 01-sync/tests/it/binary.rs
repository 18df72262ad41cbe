//! `01-sync` as a user runs it: flags, exit statuses, JSON.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testbed::testing::{json_report, run_bin, timeline_of, usage_error};

const BIN: &str = env!("CARGO_BIN_EXE_01-sync");
const DEADLINE: Duration = Duration::from_secs(30);

#[test]
fn json_is_one_object_with_the_contract_keys() {
    let output = run_bin(
        BIN,
        &["--items", "20", "--latency", "1ms", "--json"],
        DEADLINE,
    );
    assert!(output.status.success(), "{output:?}");
    let report = json_report(&output);
    assert_eq!(report["stage"], "sync");
    assert_eq!(report["ok"], 20);
    assert_eq!(report["lost"], 0);
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
    let mut child = Command::new(BIN)
        .args(["--items", "3", "--latency", "1ms"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
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
