//! Tidy checks on the source itself: rules a test can read but not run.

use std::path::PathBuf;

use testbed::testing::rust_files;

/// Calls that block the thread. In the executor's code, any one of them
/// would stop every task. (The ready queue's `Mutex` is held for a push or
/// a swap, never across a wait.)
const BLOCKING: [&str; 6] = [
    "thread::sleep",
    "std::net::TcpStream::connect",
    "mpsc::",
    "Condvar",
    "read_line(",
    "set_nonblocking(false)",
];

/// **Architecture invariant**: the executor never blocks its thread except
/// in the reactor's one `epoll_wait` (the selector's `wait`). The stage's
/// file records to the database, which is the harness's business.
#[test]
fn the_executor_sleeps_only_in_the_reactors_wait() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut waits = 0;
    for file in rust_files(&src) {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "main.rs" || name == "stage.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        let code = text
            .lines()
            .take_while(|line| !line.starts_with("#[cfg(test)]"));
        for line in code.filter(|line| !line.trim_start().starts_with("//")) {
            for call in BLOCKING {
                assert!(
                    !line.contains(call),
                    "{name}: `{call}` blocks the thread: {line}"
                );
            }
            waits += line.matches("selector.wait(").count();
        }
    }
    assert_eq!(waits, 1, "exactly one place sleeps: the reactor's wait");
}
