//! The forked server's guard, from inside the (multi-threaded) harness.
//! The forked server itself is tested in `tests/forked.rs`, a binary that
//! is single-threaded when it forks.

use std::sync::mpsc;
use std::thread;

use testbed::forked::{ForkedServer, thread_count};
use testbed::server::ServerConfig;

#[test]
fn refuses_to_fork_a_multi_threaded_process() {
    // libtest may run this test on its main thread (`--test-threads=1`), so
    // make sure of a second thread for the duration of the call.
    let (release, parked) = mpsc::channel::<()>();
    let helper = thread::spawn(move || parked.recv());
    let threads = thread_count().expect("/proc/self/task is readable");
    assert!(threads >= 2, "{threads}");

    let error = ForkedServer::start(ServerConfig::default())
        .expect_err("forking with two threads must be refused");
    let message = error.to_string();
    assert!(message.contains("single-threaded"), "{message}");

    drop(release);
    let _ = helper.join();
}
