//! The oldest backend: `select(2)`, called directly through libc.
//!
//! The file is named after the call's data structure, the `fd_set`, rather
//! than after the call: the crate is `select` and so is its stage, and a
//! third `select` (`select::select::Poller`) would leave a reader guessing
//! which one is meant.
//!
//! `select` takes *sets* of descriptors, as bitmaps (`fd_set`), one for
//! reading and one for writing, plus `nfds`, one more than the highest
//! descriptor in them. The kernel scans every bit below `nfds`, then
//! *overwrites* the sets with the answer. Three costs follow, all visible in
//! [`Poller::wait`]:
//!
//! - the sets must be rebuilt before every call, because the previous call
//!   destroyed them;
//! - the kernel's work grows with the highest descriptor number, not with
//!   the number of descriptors that are ready: one busy socket at fd 900
//!   costs a scan of 900 bits;
//! - finding the ready ones means testing every registered descriptor
//!   afterwards (`FD_ISSET`).
//!
//! And one hard limit: an `fd_set` has room for [`FD_SETSIZE`] (1024)
//! descriptors, numbered `0..1024`. `FD_SET` with a larger number writes
//! out of bounds in C; libc's Rust version panics inside a function that
//! cannot unwind, which aborts the whole process, uncatchably. So
//! [`Poller::add`] refuses such a descriptor with an error that names
//! `FD_SETSIZE` *before* any bitmap is touched, and the pool turns it into
//! a clean exit.
//!
//! Not here: the shared contract (see [`crate::selector::Selector`]); the
//! other backends (`poll.rs`, `epoll.rs`).

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::time::Duration;

use crate::event::{Event, Interest, Token};
use crate::interest_list::InterestList;
use crate::sys::{retry_interrupted, syscall};

/// How many descriptors an `fd_set` can hold: `0..FD_SETSIZE`. Fixed when
/// the C library was compiled (1024 on Linux); no setting raises it.
pub const FD_SETSIZE: usize = libc::FD_SETSIZE;

/// The error [`Poller::add`] returns for a descriptor `select(2)` cannot
/// watch. It travels inside an `io::Error` of kind `InvalidInput`; find it
/// with [`is_fd_too_high`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdTooHigh {
    /// The descriptor that was refused.
    pub fd: RawFd,
}

impl fmt::Display for FdTooHigh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "select(2) cannot watch descriptor {}: an fd_set holds only \
             descriptors below FD_SETSIZE ({FD_SETSIZE}); use --backend poll or --backend epoll",
            self.fd
        )
    }
}

impl std::error::Error for FdTooHigh {}

/// Is this the error of a descriptor at or above `FD_SETSIZE`?
pub fn is_fd_too_high(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.downcast_ref::<FdTooHigh>().is_some())
}

// ANCHOR: poller
/// A selector over `select(2)`.
///
/// - **Level-triggered**: a descriptor is reported by every wait for as long as it is ready.
/// - A signal during a wait (`EINTR`) is retried with the time left; `wait`
///   never returns `Interrupted`.
/// - Readiness is only a hint: the read or write it announces may still
///   return `WouldBlock`, or do only part of the work. Descriptors at or above [`FD_SETSIZE`] are refused.
///
/// [`Selector`](crate::selector::Selector) documents the contract shared by
/// all three backends.
#[derive(Debug, Default)]
pub struct Poller {
    /// What to watch, by descriptor.
    ///
    /// # Invariant
    ///
    /// Every descriptor here is below [`FD_SETSIZE`]: [`Poller::add`]
    /// refuses the others, so [`FdSet::insert`] is never called with one.
    registered: InterestList,
}

impl Poller {
    /// A poller with nothing registered. `select` keeps no kernel state, so
    /// this makes no system call.
    pub fn new() -> io::Result<Poller> {
        Ok(Poller::default())
    }

    /// Starts watching `fd`; refuses a descriptor at or above `FD_SETSIZE`
    /// with [`FdTooHigh`], before touching any `fd_set`.
    pub fn add(&mut self, fd: BorrowedFd<'_>, token: Token, interest: Interest) -> io::Result<()> {
        let raw = fd.as_raw_fd();
        if usize::try_from(raw).map_or(true, |raw| raw >= FD_SETSIZE) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                FdTooHigh { fd: raw },
            ));
        }
        self.registered.add(fd, token, interest)
    }
    // ANCHOR_END: poller

    /// Changes what `fd` is watched for. No system call: the sets are
    /// rebuilt from this map on every wait anyway.
    pub fn modify(
        &mut self,
        fd: BorrowedFd<'_>,
        token: Token,
        interest: Interest,
    ) -> io::Result<()> {
        self.registered.modify(fd, token, interest)
    }

    /// Stops watching `fd`. Call it before closing the descriptor.
    pub fn delete(&mut self, fd: BorrowedFd<'_>) -> io::Result<()> {
        self.registered.delete(fd)
    }

    // ANCHOR: wait
    /// Waits until a registered descriptor is ready or `timeout` passes
    /// (`None`: no limit), and puts what is ready in `events` (cleared
    /// first; empty after a timeout).
    pub fn wait(&mut self, events: &mut Vec<Event>, timeout: Option<Duration>) -> io::Result<()> {
        events.clear();
        let nfds = self.registered.max_fd().map_or(0, |fd| fd + 1);
        let mut readers = FdSet::new();
        let mut writers = FdSet::new();
        retry_interrupted(timeout, |left| {
            // `select` overwrites the sets with its answer (and leaves them
            // undefined after an error), so they are rebuilt for every call.
            readers = FdSet::new();
            writers = FdSet::new();
            for (fd, _, interest) in self.registered.iter() {
                if interest.is_readable() {
                    readers.insert(fd);
                }
                if interest.is_writable() {
                    writers.insert(fd);
                }
            }
            let mut tv = left.map(|t| libc::timeval {
                tv_sec: libc::time_t::try_from(t.as_secs()).unwrap_or(libc::time_t::MAX),
                tv_usec: libc::suseconds_t::from(t.subsec_micros()),
            });
            let tv_ptr = tv
                .as_mut()
                .map_or(std::ptr::null_mut(), |tv| tv as *mut libc::timeval);
            // SAFETY: both sets are valid, initialised `fd_set`s owned by
            // this frame; `nfds` is one more than the highest descriptor set
            // in them; `tv_ptr` is null (no timeout) or points to a live
            // `timeval`. The exception set is not used (null is allowed).
            syscall(unsafe {
                libc::select(
                    nfds,
                    &mut readers.0,
                    &mut writers.0,
                    std::ptr::null_mut(),
                    tv_ptr,
                )
            })
        })?;
        // The kernel says *which* bits are set, not where: test them all.
        for (fd, token, _) in self.registered.iter() {
            let readable = readers.contains(fd);
            let writable = writers.contains(fd);
            if readable || writable {
                events.push(Event {
                    token,
                    readable,
                    writable,
                    // select(2) does not say; being level-triggered, it
                    // reports a closed socket again on the next call.
                    closed: false,
                });
            }
        }
        Ok(())
    }
    // ANCHOR_END: wait
}

/// A safe face on libc's `fd_set` bitmap for descriptors below
/// [`FD_SETSIZE`].
struct FdSet(libc::fd_set);

impl FdSet {
    /// An empty set.
    fn new() -> FdSet {
        let mut set = std::mem::MaybeUninit::<libc::fd_set>::uninit();
        // SAFETY: `FD_ZERO` writes every word of the set, so the value is
        // initialised when it returns; the pointer is to our own local.
        unsafe {
            libc::FD_ZERO(set.as_mut_ptr());
            FdSet(set.assume_init())
        }
    }

    /// Adds `fd`.
    ///
    /// # Panics
    ///
    /// In debug builds, if `fd` is outside `0..FD_SETSIZE` (the `Poller`'s
    /// invariant forbids it; a release build relies on that invariant).
    fn insert(&mut self, fd: RawFd) {
        debug_assert!(
            usize::try_from(fd).is_ok_and(|fd| fd < FD_SETSIZE),
            "fd {fd} reached FD_SET: Poller::add should have refused it"
        );
        // SAFETY: `fd` is in `0..FD_SETSIZE` (the invariant of
        // `Poller::registered`, checked above in debug builds), so the bit
        // is inside the bitmap; the pointer is to our own set.
        unsafe { libc::FD_SET(fd, &mut self.0) }
    }

    /// Is `fd` in the set?
    fn contains(&self, fd: RawFd) -> bool {
        debug_assert!(usize::try_from(fd).is_ok_and(|fd| fd < FD_SETSIZE));
        // SAFETY: as for `insert`: `fd` is in `0..FD_SETSIZE`.
        unsafe { libc::FD_ISSET(fd, &self.0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn a_descriptor_at_fd_setsize_is_refused_before_fd_set() {
        // Duplicate a descriptor to number 1024 or above with F_DUPFD, which
        // picks the lowest free number at or above its argument.
        testbed::limits::raise_fd_limit().expect("the soft limit can rise to the hard one");
        let probe = std::fs::File::open("/dev/null").expect("/dev/null opens");
        let high = dup_at_least(&probe, FD_SETSIZE as RawFd);
        let mut poller = Poller::new().expect("select needs no setup");
        let error = poller
            .add(high.as_fd(), Token::new(0), Interest::Read)
            .expect_err("fd 1024 does not fit an fd_set");
        assert!(is_fd_too_high(&error));
        assert!(error.to_string().contains("FD_SETSIZE"), "{error}");
        // And nothing was registered, so a wait does not touch it.
        let mut events = Vec::new();
        poller
            .wait(&mut events, Some(Duration::ZERO))
            .expect("an empty wait");
        assert!(events.is_empty());
    }

    /// `fcntl(F_DUPFD)` as a safe `OwnedFd`, for the test above.
    fn dup_at_least(file: &std::fs::File, min: RawFd) -> std::os::fd::OwnedFd {
        use std::os::fd::FromRawFd;
        // SAFETY: `fcntl(F_DUPFD)` on an open descriptor returns a new
        // descriptor that nobody else owns, or -1 (checked by `syscall`).
        let fd = syscall(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_DUPFD, min) })
            .expect("the descriptor limit is above 1024");
        // SAFETY: `fd` was just created and is owned by nothing else.
        unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }
    }
}
