//! Tidy checks on the source itself (rust-analyzer's `tidy.rs` idea):
//! rules a test can read but not run.

use std::path::{Path, PathBuf};

use testbed::testing::rust_files;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_file_starts_with_a_module_doc() {
    for folder in ["src", "tests", "examples"] {
        for file in rust_files(&crate_dir().join(folder)) {
            let text = std::fs::read_to_string(&file).expect("readable");
            assert!(
                text.starts_with("//!"),
                "{} must start with a //! doc: what it is, what it is not, what to read next",
                file.display()
            );
        }
    }
}

/// Calls that block the thread. In the scheduler's code, any one of them
/// would stop every fiber.
const BLOCKING: [&str; 7] = [
    "thread::sleep",
    "std::net::TcpStream",
    "std::sync::Mutex",
    ".recv()",
    "recv_timeout",
    "read_line(",
    "set_nonblocking(false)",
];

/// **Architecture invariant**: the fiber scheduler never makes a blocking
/// system call; `poll` is the only place its thread sleeps. The stage's
/// own file is skipped: it records each outcome in SQLite from the item's
/// fiber, the one exception, stated with the invariant in `scheduler.rs`.
#[test]
fn the_scheduler_never_blocks_except_in_poll() {
    let mut polls = 0;
    for file in rust_files(&crate_dir().join("src")) {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "main.rs" || name == "stage.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        let code = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"));
        for (n, line) in code.enumerate() {
            for call in BLOCKING {
                assert!(
                    !line.contains(call),
                    "{name}: `{call}` blocks the thread: {line} (code line {n})"
                );
            }
            polls += line.matches("poll.poll(").count();
        }
    }
    assert_eq!(polls, 1, "exactly one place sleeps: the loop's poll");
}

/// No source file grows past a length a reader can hold in mind: a file
/// that long has more than one concept in it, and should be split.
const MAX_LINES: usize = 500;

#[test]
fn no_source_file_is_longer_than_500_lines() {
    for file in rust_files(&crate_dir().join("src")) {
        let lines = std::fs::read_to_string(&file)
            .expect("readable")
            .lines()
            .count();
        assert!(
            lines <= MAX_LINES,
            "{} has {lines} lines: split it along its seams",
            file.display()
        );
    }
}

/// The modules under the core: they know nothing of fibers.
const UNDER_THE_CORE: [&str; 3] = ["heap", "stacks", "reactor"];

/// The crate modules a file imports (`use crate::x::...` gives `x`).
fn crate_imports(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("readable");
    text.lines()
        .filter_map(|line| line.trim_start().strip_prefix("use crate::"))
        .map(|rest| {
            rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// **Layering**: the core (`scheduler.rs` and `scheduler/`) can be read
/// first, because it imports only what lies under it, never what is built
/// on it (`io`, `join`, `remote`, the locks, the stage); and what lies
/// under it imports nothing of the crate. So there is no import cycle.
#[test]
fn the_core_imports_nothing_built_on_it() {
    let src = crate_dir().join("src");
    let mut core = rust_files(&src.join("scheduler"));
    core.push(src.join("scheduler.rs"));
    for file in core {
        for module in crate_imports(&file) {
            assert!(
                UNDER_THE_CORE.contains(&module.as_str()),
                "{} imports crate::{module}, which is built on the core",
                file.display()
            );
        }
    }
    for module in UNDER_THE_CORE {
        let file = src.join(format!("{module}.rs"));
        assert_eq!(
            crate_imports(&file),
            Vec::<String>::new(),
            "{} must not import the crate: it lies under the core",
            file.display()
        );
    }
}
