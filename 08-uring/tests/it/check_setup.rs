//! `check-setup` says, before the first class, which chapters a machine
//! cannot run and why: here under a seccomp filter that refuses io_uring
//! (what Docker's default profile does), and on this machine as it is.

use std::process::Command;
use std::time::Duration;

use testbed::testing::{forbid_io_uring, run_command};

const BIN: &str = env!("CARGO_BIN_EXE_check-setup");
const DEADLINE: Duration = Duration::from_secs(30);

/// Runs `check-setup` with `io_uring_setup` failing with `errno`, and
/// checks what it says: the io_uring line fails, naming what cannot run
/// and why, every other check still runs and passes, and the exit status
/// is 1.
fn refused_with(errno: i32, name: &str) {
    let mut command = Command::new(BIN);
    forbid_io_uring(&mut command, errno);
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
        "the race's io_uring rows",
        "every other chapter can",
        name,
        "seccomp",
    ] {
        assert!(line.contains(words), "{words}: {line}");
    }
    // The other checks still ran, and passed.
    for what in ["system", "descriptors", "toolchain", "C compiler", "disk"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.contains(what) && !l.contains("FAIL")),
            "{what}: {stdout}"
        );
    }
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("FAIL"))
            .count(),
        1,
        "only io_uring fails: {stdout}"
    );
    assert!(stdout.contains("1 check failed"), "{stdout}");
}

/// Docker's default seccomp profile (Docker 25 and later) leaves the
/// io_uring calls out of its allow-list, and its default action fails a
/// call with EPERM (`defaultErrnoRet: 1`).
#[test]
fn io_uring_refused_as_docker_does_names_chapter_9_and_fails() {
    refused_with(libc::EPERM, "EPERM");
}

/// Other sandboxes (systemd-nspawn's filters, Nix's build sandbox) answer
/// ENOSYS, as if the kernel had no io_uring.
#[test]
fn io_uring_hidden_names_chapter_9_and_fails() {
    refused_with(libc::ENOSYS, "ENOSYS");
}

#[test]
fn this_machine_passes_every_check() {
    if let Err(why) = uring::setup::probe() {
        // A container that refuses io_uring: the tests above cover it.
        println!("skipped: io_uring is not available to this test ({why})");
        return;
    }
    let output = run_command(Command::new(BIN), DEADLINE);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    assert!(stdout.contains("Every chapter can run here"), "{stdout}");
}
