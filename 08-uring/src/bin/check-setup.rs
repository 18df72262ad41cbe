//! `cargo run --bin check-setup`: is this machine ready for the book?
//!
//! The first command of a course, before the first exercise: a machine
//! that cannot run a chapter should say so now, with the fix, not in the
//! middle of a class as an error nobody has seen before. It checks what
//! the book needs of the machine: the operating system, the kernel,
//! whether io_uring is allowed (Docker's default seccomp profile refuses
//! it, and chapter 9 cannot run without it), the limit on open
//! descriptors (chapter 4 holds 1,100 connections in one process), and
//! the Rust toolchain.
//!
//! It lives in stage 8's crate because it asks the kernel for a ring the
//! way stage 8 does (`uring::setup::probe`), and so says what stage 8
//! would say. Each line starts with `ok`, `FAIL` (a chapter cannot run)
//! or `note` (nothing fails, but something is worth knowing), and the
//! exit status is 1 when any check failed, 0 otherwise.

use std::process::{Command, ExitCode};

use uring::setup;

/// What the book asks of the descriptor limit: chapter 4's ceiling run
/// holds 1,100 connections, two descriptors each (client and embedded
/// server), and a run raises its soft limit to the hard one by itself.
const BOOK_CONNECTIONS: u64 = 1_100;

/// The exercises that run on io_uring, besides stage 8 itself.
const URING_EXERCISES: &str = "ch09-linked and ch09-take-back";

/// One line of the check: its verdict and what it saw (and how to fix it).
struct Check {
    verdict: Verdict,
    what: &'static str,
    said: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Ok,
    Fail,
    Note,
}

fn main() -> ExitCode {
    let checks = [system(), io_uring(), descriptors(), toolchain()];
    println!("async-ladder: checking this machine for the book");
    for check in &checks {
        let mark = match check.verdict {
            Verdict::Ok => "ok  ",
            Verdict::Fail => "FAIL",
            Verdict::Note => "note",
        };
        println!("  {mark}  {:<12} {}", check.what, check.said);
    }
    let failed = checks.iter().filter(|c| c.verdict == Verdict::Fail).count();
    if failed == 0 {
        println!("Every chapter can run here. Next: chapter 1, `cargo run -p sync`.");
        ExitCode::SUCCESS
    } else {
        println!(
            "{failed} check{} failed: the lines marked FAIL say which chapters cannot run and how to fix it.",
            if failed == 1 { "" } else { "s" }
        );
        ExitCode::FAILURE
    }
}

/// Linux, and its version: the stages use epoll and io_uring, which only
/// Linux has.
fn system() -> Check {
    let what = "system";
    if !cfg!(target_os = "linux") {
        return Check {
            verdict: Verdict::Fail,
            what,
            said: format!(
                "{}: the stages use epoll and io_uring, which only Linux has; use a Linux \
                 machine or virtual machine (WSL 2 works, Docker needs io_uring allowed: see below)",
                std::env::consts::OS
            ),
        };
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|r| r.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned());
    let (major, minor) = kernel_version(&release);
    if (major, minor) < (5, 11) {
        return Check {
            verdict: Verdict::Fail,
            what,
            said: format!(
                "Linux {release}: chapter 9's ring needs 5.11 or later (its wait with a time \
                 limit); chapters 1 to 8 and 10 run; upgrade the kernel for chapter 9"
            ),
        };
    }
    Check {
        verdict: Verdict::Ok,
        what,
        said: format!("Linux {release} ({})", std::env::consts::ARCH),
    }
}

/// `5.15.0-91-generic` → (5, 15); anything unreadable → (0, 0).
fn kernel_version(release: &str) -> (u32, u32) {
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// Can this process make a ring, and does the kernel have every operation
/// stage 8 uses? The same probe stage 8 runs before a run.
fn io_uring() -> Check {
    let what = "io_uring";
    match setup::probe() {
        Ok(()) => Check {
            verdict: Verdict::Ok,
            what,
            said: "allowed, with every operation chapter 9 uses".to_owned(),
        },
        Err(why) => Check {
            verdict: Verdict::Fail,
            what,
            said: format!(
                "chapter 9 (08-uring), its exercises {URING_EXERCISES} and the race's io_uring \
                 rows cannot run here; every other chapter can. {why}"
            ),
        },
    }
}

/// The hard limit on open descriptors: a run raises its soft limit that
/// far by itself, so the hard one is what bounds a run's connections.
fn descriptors() -> Check {
    let what = "descriptors";
    let Ok((soft, hard)) = testbed::limits::fd_limits() else {
        return Check {
            verdict: Verdict::Note,
            what,
            said: "could not read RLIMIT_NOFILE; runs of many connections may fail with \
                   EMFILE"
                .to_owned(),
        };
    };
    let need = 2 * BOOK_CONNECTIONS + testbed::limits::SPARE_DESCRIPTORS;
    if hard < need {
        return Check {
            verdict: Verdict::Fail,
            what,
            said: format!(
                "hard limit {hard} (soft {soft}): chapter 4's run of {BOOK_CONNECTIONS} \
                 connections needs {need}; raise it (`ulimit -Hn {need}` as root, or `nofile` in \
                 /etc/security/limits.conf, or `--ulimit nofile={need}` for Docker)"
            ),
        };
    }
    Check {
        verdict: Verdict::Ok,
        what,
        said: format!(
            "hard limit {hard} (soft {soft}, raised by each run): the book's largest runs fit"
        ),
    }
}

/// The Rust toolchain: this program compiled, so cargo is there and new
/// enough for the workspace; say which one, and whether `rustc` on the
/// PATH is the same.
fn toolchain() -> Check {
    let what = "toolchain";
    let needs = env!("CARGO_PKG_RUST_VERSION");
    let found = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned()))
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    match found {
        Some(version) => Check {
            verdict: Verdict::Ok,
            what,
            said: format!("{version}: the workspace needs Rust {needs} or later"),
        },
        None => Check {
            verdict: Verdict::Note,
            what,
            said: format!(
                "no `rustc` on the PATH (cargo found one to build this): the workspace needs \
                 Rust {needs} or later; install it with rustup"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::kernel_version;

    #[test]
    fn kernel_versions_read_their_first_two_numbers() {
        assert_eq!(kernel_version("6.18.0"), (6, 18));
        assert_eq!(kernel_version("5.15.0-91-generic"), (5, 15));
        assert_eq!(kernel_version("4.19.112+"), (4, 19));
        assert_eq!(kernel_version("weird"), (0, 0));
    }
}
