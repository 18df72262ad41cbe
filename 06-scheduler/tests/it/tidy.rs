//! Tidy checks on the source itself (rust-analyzer's `tidy.rs` idea):
//! rules a test can read but not run.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

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
/// system call; `poll` is the only place its thread sleeps. (The stage's
/// own file records to the database, which is the harness's business.)
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
