//! The two small rules every system call in this crate follows.
//!
//! 1. A C system call reports failure as `-1` and leaves the reason in
//!    `errno`. [`syscall`] turns that into an `io::Result` in one place, so
//!    no caller can forget to look at `errno` (mio's `syscall!` macro, in
//!    `src/sys/unix/mod.rs`, is the same idea).
//! 2. A wait interrupted by a signal (`EINTR`) has not failed: nothing
//!    happened yet, so wait again, for the time that is *left*.
//!    [`retry_interrupted`] does that for all three backends, so a signal
//!    never shortens or lengthens a timeout and never reaches the pool as an
//!    error.
//!
//! Not here: the system calls themselves (`fd_set.rs`, `poll.rs`,
//! `epoll.rs`).

use std::io;
use std::time::{Duration, Instant};

/// Turns a C return value into an `io::Result`: `-1` means "look at
/// `errno`", anything else is the call's result.
pub fn syscall(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

// ANCHOR: retry_interrupted
/// Calls `wait` with `timeout`, again with the time left each time it fails
/// with `Interrupted`, and returns its first other result.
///
/// `None` means "no timeout": wait until something happens. A wait that is
/// interrupted after its deadline is called once more with a zero timeout,
/// which reports whatever became ready meanwhile without blocking.
pub fn retry_interrupted<T>(
    timeout: Option<Duration>,
    mut wait: impl FnMut(Option<Duration>) -> io::Result<T>,
) -> io::Result<T> {
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut left = timeout;
    loop {
        match wait(left) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            }
            other => return other,
        }
    }
}
// ANCHOR_END: retry_interrupted

/// A timeout in whole milliseconds for `poll(2)`, rounded *up*: rounding
/// 0.4 ms down to 0 would turn a short wait into a busy loop that spins
/// until the deadline. `None` is `-1`, "wait forever".
pub fn timeout_ms(timeout: Option<Duration>) -> libc::c_int {
    match timeout {
        None => -1,
        Some(t) => {
            let ms = t.as_nanos().div_ceil(1_000_000);
            libc::c_int::try_from(ms).unwrap_or(libc::c_int::MAX)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minus_one_is_errno_and_the_rest_is_a_result() {
        assert_eq!(syscall(3).ok(), Some(3));
        assert!(syscall(-1).is_err());
    }

    #[test]
    fn interrupted_waits_are_retried_with_the_time_left() {
        let mut calls = Vec::new();
        let result = retry_interrupted(Some(Duration::from_secs(10)), |left| {
            calls.push(left);
            if calls.len() < 3 {
                Err(io::Error::from(io::ErrorKind::Interrupted))
            } else {
                Ok(7)
            }
        });
        assert_eq!(result.ok(), Some(7));
        assert_eq!(calls.len(), 3);
        // Each retry asks for no more than the time left.
        assert!(calls.windows(2).all(|w| w[1] <= w[0]), "{calls:?}");
        let other = retry_interrupted(None, |_| -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        });
        assert_eq!(other.map_err(|e| e.kind()), Err(io::ErrorKind::BrokenPipe));
    }

    #[test]
    fn millisecond_timeouts_round_up() {
        assert_eq!(timeout_ms(None), -1);
        assert_eq!(timeout_ms(Some(Duration::ZERO)), 0);
        assert_eq!(timeout_ms(Some(Duration::from_micros(400))), 1);
        assert_eq!(timeout_ms(Some(Duration::from_millis(5))), 5);
    }
}
