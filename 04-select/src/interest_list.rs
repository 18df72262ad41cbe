//! The list of watched descriptors, kept in the process: what `select(2)`
//! and `poll(2)` must hand to the kernel on every single wait.
//!
//! Neither system call remembers anything between two calls, so the
//! program keeps the list (descriptor, token, interest) and rebuilds the
//! call's argument from it each time: bitmaps for `select`, an array for
//! `poll`. epoll is the opposite design: the kernel keeps the list, which
//! is why `epoll.rs` does not use this file.
//!
//! Not here: the system calls (`fd_set.rs`, `poll.rs`).

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};

use crate::event::{Interest, Token};

/// Registered descriptors, in descriptor order, with their token and
/// interest.
#[derive(Debug, Default)]
pub struct InterestList {
    entries: BTreeMap<RawFd, (Token, Interest)>,
    /// Bumped by every change, so a backend can tell whether what it built
    /// from the list is still current.
    generation: u64,
}

impl InterestList {
    /// Registers `fd`; an error if it already is.
    pub fn add(&mut self, fd: BorrowedFd<'_>, token: Token, interest: Interest) -> io::Result<()> {
        let fd = fd.as_raw_fd();
        if self.entries.contains_key(&fd) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("descriptor {fd} is already registered"),
            ));
        }
        self.entries.insert(fd, (token, interest));
        self.generation += 1;
        Ok(())
    }

    /// Changes a registered `fd`'s token and interest.
    pub fn modify(
        &mut self,
        fd: BorrowedFd<'_>,
        token: Token,
        interest: Interest,
    ) -> io::Result<()> {
        let entry = self
            .entries
            .get_mut(&fd.as_raw_fd())
            .ok_or_else(|| not_registered(fd.as_raw_fd()))?;
        *entry = (token, interest);
        self.generation += 1;
        Ok(())
    }

    /// Forgets `fd`; an error if it was not registered.
    pub fn delete(&mut self, fd: BorrowedFd<'_>) -> io::Result<()> {
        self.entries
            .remove(&fd.as_raw_fd())
            .ok_or_else(|| not_registered(fd.as_raw_fd()))?;
        self.generation += 1;
        Ok(())
    }

    /// Every entry, lowest descriptor first.
    pub fn iter(&self) -> impl Iterator<Item = (RawFd, Token, Interest)> + '_ {
        self.entries
            .iter()
            .map(|(&fd, &(token, interest))| (fd, token, interest))
    }

    /// The highest registered descriptor.
    pub fn max_fd(&self) -> Option<RawFd> {
        self.entries.keys().next_back().copied()
    }

    /// Changes so far (see the field).
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

fn not_registered(fd: RawFd) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("descriptor {fd} is not registered"),
    )
}
