//! `check-setup` says, before the first class, which chapters a machine
//! cannot run and why: here under a seccomp filter that refuses io_uring
//! (what Docker's default profile does), and on this machine as it is.

use std::process::Command;
use std::time::Duration;

use testbed::testing::{forbid_io_uring, run_command};

const BIN: &str = env!("CARGO_BIN_EXE_check-setup");
const DEADLINE: Duration = Duration::from_secs(30);

#[test]
fn io_uring_refused_names_chapter_9_and_its_exercises_and_fails() {
    let mut command = Command::new(BIN);
    forbid_io_uring(&mut command, libc::EPERM);
    let output = run_command(command, DEADLINE);
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert_eq!(
        output.status.code(),
        Some(1),
        "a failed check fails: {stdout}"
    );
    let line = stdout
        .lines()
        .find(|l| l.contains("io_uring") && l.contains("FAIL"))
        .unwrap_or_else(|| panic!("no failed io_uring line: {stdout}"));
    for words in [
        "chapter 9",
        "ch09-linked",
        "ch09-take-back",
        "every other chapter can",
        "EPERM",
        "seccomp",
    ] {
        assert!(line.contains(words), "{words}: {line}");
    }
    // The other checks still ran, and say what they saw.
    for what in ["system", "descriptors", "toolchain"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(what) && !l.contains("FAIL")),
            "{what}: {stdout}"
        );
    }
}

#[test]
fn this_machine_passes_every_check() {
    let output = run_command(Command::new(BIN), DEADLINE);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    assert!(stdout.contains("Every chapter can run here"), "{stdout}");
}
