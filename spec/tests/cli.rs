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

#[test]
fn a_seed_replays_one_scenario_on_07_alone() {
    let out = run(&[
        "--runtime",
        "07-executor",
        "--seed",
        "5",
        "spawned-tasks-start-in-spawn-order",
    ]);
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8_lossy(&out.stdout);
    let header = table.lines().next().unwrap_or_default();
    assert!(header.contains("07-executor seed 5"), "{table}");
    assert!(!header.contains("tokio"), "one runtime only: {table}");
}

#[test]
fn a_bad_seed_or_runtime_is_one_line_and_exit_2() {
    for (args, says) in [
        (&["--seed", "many", "--all"][..], "whole number"),
        (
            &["--runtime", "tokio-ct", "--seed", "1", "--all"][..],
            "--runtime 07-executor",
        ),
        (&["--runtime", "no-such", "--all"][..], "tokio-ct"),
        (&["--seed"][..], "needs a value"),
        (&["--all", "sleep-is-never-early"][..], "one or the other"),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn traces_put_the_expected_trace_beside_each_one_thread_runtime() {
    let out = run(&["--traces", "sleeps-add-up"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().next().unwrap_or_default();
    for column in ["expected", "06 fibers", "07 executor", "tokio ct"] {
        assert!(header.contains(column), "{text}");
    }
    assert!(text.contains("two, not before 20 ms"), "{text}");
    assert!(
        text.lines().last().unwrap_or_default().contains("*pass*"),
        "{text}"
    );
}
