//! Where io_uring is forbidden, the binary says why, how to check, and
//! what to run instead, with status 2, before anything starts.
//!
//! Each cause is made real in the child process alone: a seccomp filter,
//! installed between `fork` and `exec`, makes `io_uring_setup` fail with
//! the error a container's profile or an old kernel would give. (Docker's
//! default profile answers `EPERM`; `kernel.io_uring_disabled` does too;
//! an old kernel `ENOSYS`; memory limits `ENOMEM`.)

use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Command, Output};
use std::time::Duration;

use testbed::testing::{forbid_io_uring, run_command};

const BIN: &str = env!("CARGO_BIN_EXE_08-uring");
const DEADLINE: Duration = Duration::from_secs(30);

/// Runs a small job with io_uring_setup failing with `errno`.
fn run_without_io_uring(errno: i32) -> Output {
    let mut command = Command::new(BIN);
    command.args(["--items", "5", "--latency", "1ms"]);
    forbid_io_uring(&mut command, errno);
    run_command(command, DEADLINE)
}

/// Checks a refusal: status 2, one line, the cause and the way out.
#[track_caller]
fn assert_refused(output: &Output, says: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty(), "no report: the run never started");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for words in says.iter().chain(&["run 07-executor", "instead"]) {
        assert!(stderr.contains(words), "{words}: {stderr}");
    }
    stderr
}

#[test]
fn forbidden_by_seccomp_or_the_sysctl_names_both_and_how_to_check() {
    let output = run_without_io_uring(libc::EPERM);
    let stderr = assert_refused(
        &output,
        &[
            "EPERM",
            "sysctl kernel.io_uring_disabled",
            "seccomp profile",
        ],
    );
    // The message as a user sees it, in the test's log.
    println!("{stderr}");
}

#[test]
fn a_kernel_without_io_uring_says_so() {
    let output = run_without_io_uring(libc::ENOSYS);
    assert_refused(&output, &["ENOSYS", "no io_uring", "uname -r"]);
}

#[test]
fn no_memory_for_the_rings_points_at_the_limits() {
    let output = run_without_io_uring(libc::ENOMEM);
    assert_refused(&output, &["ENOMEM", "ulimit -l", "memory"]);
}

#[test]
fn a_locked_memory_limit_of_zero_is_refused_clearly_or_not_charged() {
    // Kernels before 5.12 charge the rings to RLIMIT_MEMLOCK; later ones
    // do not (this machine's 6.18 does not). Either the run works, or it
    // is refused with the ENOMEM message: never a crash or a bare error.
    let mut command = Command::new(BIN);
    command.args(["--items", "5", "--latency", "1ms"]);
    let install = || {
        let zero = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: setrlimit is async-signal-safe; `zero` lives on this
        // closure's stack for the call.
        match unsafe { libc::setrlimit(libc::RLIMIT_MEMLOCK, &zero) } {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    };
    // SAFETY: the closure makes one system call and allocates nothing.
    unsafe { command.pre_exec(install) };
    let output = run_command(command, DEADLINE);
    if output.status.code() == Some(2) {
        assert_refused(&output, &["ENOMEM", "ulimit -l"]);
    } else {
        assert!(output.status.success(), "{output:?}");
    }
}

#[test]
fn a_kernel_without_an_operation_the_ring_needs_is_refused_naming_it() {
    use io_uring::opcode;
    use uring::setup::{INSTEAD, requirements};

    assert_eq!(requirements(|_| true, true, true), Ok(()), "5.11 and later");
    for (code, name) in [
        (opcode::Connect::CODE, "IORING_OP_CONNECT"),
        (opcode::Send::CODE, "IORING_OP_SEND"),
        (opcode::Recv::CODE, "IORING_OP_RECV"),
        (opcode::LinkTimeout::CODE, "IORING_OP_LINK_TIMEOUT"),
        (opcode::AsyncCancel::CODE, "IORING_OP_ASYNC_CANCEL"),
    ] {
        let why = requirements(|c| c != code, true, true).expect_err(name);
        let text = why.to_string();
        assert!(text.contains(name) && text.contains(INSTEAD), "{text}");
        assert!(!text.contains('\n'), "one line: {text}");
    }
    let no_wait = requirements(|_| true, true, false).expect_err("no EXT_ARG");
    assert!(
        no_wait
            .to_string()
            .contains("IORING_FEAT_EXT_ARG (Linux 5.11)")
    );
    let drops = requirements(|_| true, false, true).expect_err("no NODROP");
    assert!(drops.to_string().contains("IORING_FEAT_NODROP"));
    assert_eq!(uring::setup::probe(), Ok(()), "this kernel has everything");
}
