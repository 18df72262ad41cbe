//! The words the three backends share: a [`Token`] names a registered
//! descriptor, an [`Interest`] says what to watch it for, an [`Event`] says
//! what the kernel reported.
//!
//! These types are the whole vocabulary between the pool and a backend, so
//! `fd_set.rs`, `poll.rs` and `epoll.rs` can replace each other: each takes
//! `Interest`s in and hands `Event`s out, whatever its system call calls
//! them (`fd_set` bits, `POLLIN`, `EPOLLIN`).
//!
//! Not here: any system call.

/// The caller's name for a registered descriptor, handed back in every
/// [`Event`] for it (mio's `Token`). The pool uses its slot number, so an
/// event leads straight to the slot without a search.
///
/// The number is private: a token is made on purpose, with
/// [`Token::new`], not by accident from any `usize` in reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Token(usize);

impl Token {
    /// The token numbered `n`.
    pub const fn new(n: usize) -> Token {
        Token(n)
    }

    /// Its number (for a backend that hands it to the kernel, or a caller
    /// that numbered its descriptors).
    pub const fn get(self) -> usize {
        self.0
    }
}

/// What to watch a descriptor for. There is no "nothing": a descriptor that
/// needs nothing is deleted, not kept with an empty interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interest {
    /// Data (or an end of stream, or an error) to read.
    Read,
    /// Room in the send buffer (or a finished `connect`).
    Write,
    /// Both.
    ReadWrite,
}

impl Interest {
    /// Watch for reading?
    pub fn is_readable(self) -> bool {
        matches!(self, Interest::Read | Interest::ReadWrite)
    }

    /// Watch for writing?
    pub fn is_writable(self) -> bool {
        matches!(self, Interest::Write | Interest::ReadWrite)
    }
}

/// One readiness report.
///
/// A hint, not a promise: "readable" means a read is *worth trying* now,
/// and it may still return `WouldBlock` (a spurious wake-up) or only part of
/// a line. An error or a hang-up on the descriptor is reported as both
/// readable and writable, because the next read or write is what will say
/// which error it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The token the descriptor was registered with.
    pub token: Token,
    /// A read may make progress.
    pub readable: bool,
    /// A write may make progress.
    pub writable: bool,
    /// The peer has closed its side, or the socket failed. A reader that
    /// stops early after a short read (see `Connection::on_ready`) must
    /// read on to the end of the stream when this is set: under an
    /// edge-triggered backend the close may have come in the same event as
    /// the data, and no later event would announce it.
    pub closed: bool,
}
