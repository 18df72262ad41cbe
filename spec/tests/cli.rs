//! The binary: the table on `--all`, exit 2 and one line on bad input.

use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_runtime-spec"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn no_arguments_or_an_unknown_flag_is_a_usage_error() {
    for args in [&[][..], &["--everything"][..]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("--all"), "{err}");
    }
}

#[test]
fn an_unknown_scenario_is_named_and_refused() {
    let out = run(&["no-such-behaviour"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-behaviour") && err.contains("--all"),
        "{err}"
    );
}

#[test]
fn a_named_scenario_prints_its_row_on_every_runtime() {
    let out = run(&["sleep-is-never-early"]);
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8_lossy(&out.stdout);
    let header = table.lines().next().unwrap_or_default();
    for runtime in ["06-scheduler", "07-executor", "tokio-ct", "tokio-mt"] {
        assert!(header.contains(runtime), "{table}");
    }
    assert!(table.contains("sleep-is-never-early"), "{table}");
}
