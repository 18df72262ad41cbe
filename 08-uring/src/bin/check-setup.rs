//! `cargo run -p uring --bin check-setup`: is this machine ready for the book?
//!
//! The first command of a course, before the first exercise: a machine
//! that cannot run a chapter should say so now, with the fix, not in the
//! middle of a class as an error nobody has seen before. It checks what
//! the book needs of the machine: the operating system, the kernel,
//! whether io_uring is allowed (Docker's default seccomp profile refuses
//! it, and chapter 9 cannot run without it), the limit on open
//! descriptors (chapter 4 holds 1,100 connections in one process), the
//! Rust toolchain (against the version `rust-toolchain.toml` pins), a C
//! compiler (the results database builds SQLite), and the free disk where
//! cargo builds.
//!
//! It lives in stage 8's crate because it asks the kernel for a ring the
//! way stage 8 does (`uring::setup::probe`), and so says what stage 8
//! would say. Each line starts with `ok`, `FAIL` (a chapter cannot run)
//! or `note` (nothing fails, but something is worth knowing), and the
//! exit status is 1 when any check failed, 0 otherwise.

use std::ffi::CString;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
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
    let checks = [
        system(),
        io_uring(),
        descriptors(),
        toolchain(),
        c_compiler(),
        disk(),
    ];
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
        println!(
            "Every chapter can run here. Next: chapter 1 (`cargo run -p sync`), and in the \
             students' copy the exercises (`rustlings`)."
        );
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
                 rows cannot run here; every other chapter can. {why}. In Docker: a seccomp \
                 profile that allows io_uring_setup, io_uring_enter and io_uring_register \
                 (`--security-opt seccomp=PROFILE.json`)"
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

/// The Rust toolchain CI builds with, from the repository's
/// `rust-toolchain.toml` (the hand-out ships the same file).
const TOOLCHAIN_FILE: &str = include_str!("../../../rust-toolchain.toml");

/// The Rust toolchain: `rustc` on the PATH (through rustup, the one
/// `rust-toolchain.toml` pins, installed on first use) against the
/// workspace's `rust-version` (older fails: nothing builds) and the pin
/// (another version is a note: it builds, but CI's numbers and messages
/// were made with the pin).
fn toolchain() -> Check {
    let what = "toolchain";
    let needs = env!("CARGO_PKG_RUST_VERSION");
    let pinned = pinned_channel(TOOLCHAIN_FILE).unwrap_or(needs);
    let found = Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    let Some(version) = found else {
        return Check {
            verdict: Verdict::Fail,
            what,
            said: format!(
                "no `rustc` on the PATH: every chapter needs Rust {needs} or later; install \
                 rustup (https://rustup.rs), which then installs Rust {pinned} here by itself"
            ),
        };
    };
    let number = version.split_whitespace().nth(1).unwrap_or("0");
    if version_key(number) < version_key(needs) {
        return Check {
            verdict: Verdict::Fail,
            what,
            said: format!(
                "{version}: every chapter needs Rust {needs} or later; run `rustup update`, or \
                 `rustup toolchain install {pinned}` (the version rust-toolchain.toml pins)"
            ),
        };
    }
    if version_key(number) != version_key(pinned) {
        return Check {
            verdict: Verdict::Note,
            what,
            said: format!(
                "{version}: new enough (Rust {needs} or later), but rust-toolchain.toml pins \
                 {pinned}, the version the book's outputs come from; `rustup toolchain install \
                 {pinned}` gives you the same"
            ),
        };
    }
    Check {
        verdict: Verdict::Ok,
        what,
        said: format!("{version}: the version rust-toolchain.toml pins"),
    }
}

/// `channel = "1.95.0"` in a `rust-toolchain.toml`.
fn pinned_channel(file: &str) -> Option<&str> {
    file.lines()
        .filter_map(|l| l.trim().strip_prefix("channel"))
        .filter_map(|rest| rest.trim_start().strip_prefix('='))
        .map(|v| v.trim().trim_matches('"'))
        .next()
}

/// `1.95.0` → [1, 95, 0]; `1.95` → [1, 95, 0]: comparable as a whole.
fn version_key(version: &str) -> [u32; 3] {
    let mut key = [0; 3];
    for (slot, part) in key.iter_mut().zip(version.split('.')) {
        *slot = part
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
    }
    key
}

/// A C compiler: the testbed's results database is rusqlite with its
/// SQLite bundled, a C file compiled on the first build, and every stage
/// records its runs there. (This program links that database too, so where
/// it runs, SQLite was built once; a fresh clone or `cargo clean` builds
/// it again.) The `cc` crate that compiles it looks at `$CC`, then `cc`.
fn c_compiler() -> Check {
    let what = "C compiler";
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let found = Command::new(&compiler)
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .map(str::to_owned)
        });
    match found {
        Some(first_line) => Check {
            verdict: Verdict::Ok,
            what,
            said: format!("`{compiler}`: {first_line} (it compiles SQLite for the results)"),
        },
        None => Check {
            verdict: Verdict::Fail,
            what,
            said: format!(
                "no `{compiler}`: every chapter's build compiles SQLite (the results database) \
                 with it; install one (`sudo apt install build-essential`, `sudo dnf install \
                 gcc`, or set CC to a C compiler)"
            ),
        },
    }
}

/// What a build of every chapter and its tests leaves in cargo's target
/// folder: `cargo test --workspace --no-run` from a clean clone left
/// 8.2 GB (7.7 GB in the students' copy), most of it the tests' binaries
/// with their debug info.
const BUILD_BYTES: u64 = 8_000_000_000;

/// Free space on the disk cargo builds on: a build that fills it stops
/// halfway with "No space left on device". This program runs from the
/// target folder, so its own folder is on that disk.
fn disk() -> Check {
    let what = "disk";
    let exe = std::env::current_exe().ok();
    match exe.as_deref().and_then(Path::parent).and_then(free_bytes) {
        Some(free) => disk_verdict(free),
        None => Check {
            verdict: Verdict::Note,
            what,
            said: "could not read the free space where cargo builds: a build of every \
                   chapter and its tests takes about 8 GB"
                .to_owned(),
        },
    }
}

/// The verdict on `free` bytes where cargo builds: short of a whole
/// build is a note, not a failure, since a target folder that is already
/// part built needs less.
fn disk_verdict(free: u64) -> Check {
    let gigabytes = free as f64 / 1e9;
    if free < BUILD_BYTES {
        Check {
            verdict: Verdict::Note,
            what: "disk",
            said: format!(
                "{gigabytes:.1} GB free where cargo builds: a build of every chapter and its tests \
                 takes about 8 GB, and one that fills the disk stops halfway; free some, or set \
                 CARGO_TARGET_DIR to a folder on a larger disk"
            ),
        }
    } else {
        Check {
            verdict: Verdict::Ok,
            what: "disk",
            said: format!(
                "{gigabytes:.0} GB free where cargo builds: every chapter's build (about 8 GB) fits"
            ),
        }
    }
}

/// The bytes an unprivileged user may still write on the file system
/// that holds `dir`, from `statvfs(3)`.
fn free_bytes(dir: &Path) -> Option<u64> {
    let path = CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stat = MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string that lives past the call,
    // and `stat` is room for one `statvfs`, which the call only writes.
    let rc = unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: `statvfs` returned 0, so it filled every field of `stat`.
    let stat = unsafe { stat.assume_init() };
    Some(stat.f_bavail * stat.f_frsize)
}

#[cfg(test)]
mod tests {
    use super::{
        BUILD_BYTES, Verdict, disk_verdict, free_bytes, kernel_version, pinned_channel, version_key,
    };

    #[test]
    fn the_pin_and_versions_compare_by_number() {
        assert_eq!(
            pinned_channel("[toolchain]\nchannel = \"1.95.0\"\n"),
            Some("1.95.0")
        );
        assert_eq!(pinned_channel("[toolchain]\n"), None);
        assert!(version_key("1.95.0") > version_key("1.9.0"));
        assert_eq!(version_key("1.95"), version_key("1.95.0"));
        assert!(version_key("1.96.0-nightly") > version_key("1.95.1"));
    }

    #[test]
    fn kernel_versions_read_their_first_two_numbers() {
        assert_eq!(kernel_version("6.18.0"), (6, 18));
        assert_eq!(kernel_version("5.15.0-91-generic"), (5, 15));
        assert_eq!(kernel_version("4.19.112+"), (4, 19));
        assert_eq!(kernel_version("weird"), (0, 0));
    }

    #[test]
    fn a_disk_short_of_a_whole_build_is_a_note_with_the_fix() {
        let short = disk_verdict(BUILD_BYTES - 1);
        assert!(short.verdict == Verdict::Note, "{}", short.said);
        assert!(short.said.contains("CARGO_TARGET_DIR"), "{}", short.said);
        assert!(short.said.starts_with("8.0 GB free"), "{}", short.said);
        let roomy = disk_verdict(BUILD_BYTES);
        assert!(roomy.verdict == Verdict::Ok, "{}", roomy.said);
    }

    #[test]
    fn the_free_space_is_read_for_a_real_folder_only() {
        let here = free_bytes(std::path::Path::new("."));
        assert!(here.is_some_and(|free| free > 0), "{here:?}");
        assert_eq!(free_bytes(std::path::Path::new("/no/such/folder")), None);
    }
}
