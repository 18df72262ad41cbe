//! The ring: operations go in as submission entries, come back as
//! completions, and everything the kernel reads or writes meanwhile is
//! owned here.
//!
//! A readiness loop (stages 4 to 7) asks the kernel "which sockets can I
//! read?" and then reads them itself, one system call each. A completion
//! loop says "read this socket into this buffer" and is told, later, "done:
//! 37 bytes". Between the two, the kernel holds a pointer to the buffer.
//! That one fact shapes this file:
//!
//! - **An operation owns its memory until its completion.** [`Ring::recv`]
//!   and [`Ring::send`] take their buffer *by value* and the [`Completion`]
//!   hands it back; the connect's address and every timeout's `timespec`
//!   live in the same table. Nothing the caller does in between (give up on
//!   the item, close the connection, cancel the read) can free a buffer the
//!   kernel may still write into: the caller no longer has it. This is why
//!   tokio-uring's `read(buf)` returns `(result, buf)`: a `&mut [u8]` would
//!   be borrowed only as long as a future lives, and a future can be
//!   dropped at any moment.
//! - **An operation owns its descriptor too.** The kernel is given a
//!   socket's *number*, and looks it up only when it takes the entry, at
//!   the next submit. Close the socket before that and the number may
//!   already name somebody else's socket (another thread's connection, the
//!   database's file): the queued send would go there. So the operations
//!   take a [`SharedFd`], and the table keeps a share of it until the
//!   completion; the descriptor closes when the last share goes, never
//!   while an operation on it is queued or in flight.
//! - **A read timeout is one more entry, linked to the read**
//!   (`IORING_OP_LINK_TIMEOUT`): the kernel cancels the read if it has not
//!   completed in time, and the read completes with `ECANCELED`. No timer
//!   heap in user space, no deadline bookkeeping per connection.
//! - **Cancelling is a request too** (`IORING_OP_ASYNC_CANCEL`), and it is
//!   not immediate: the cancelled operation still completes (with
//!   `ECANCELED`, or with its real result if it won the race), and only
//!   then does its buffer come back.
//! - **Batching**: pushing an entry costs no system call; one
//!   [`submit_and_wait`](Ring::submit_and_wait) hands the kernel every entry
//!   of a turn and sleeps until something completes.
//!
//! Not here: what the operations are for (`lane.rs`), making the ring and
//! checking the kernel (`setup.rs`); the op table (`ring/table.rs`), the
//! ring's sizes and what it needs of the kernel (`ring/options.rs`).
//!
//! # Kernel requirements
//!
//! Linux 5.11 or later, with io_uring allowed (see `setup.rs`):
//!
//! - the opcodes `CONNECT`, `SEND`, `RECV` (5.6), `LINK_TIMEOUT` and
//!   `ASYNC_CANCEL` (5.5);
//! - `IORING_FEAT_NODROP` (5.5): a completion that finds the completion
//!   queue full is kept by the kernel until there is room, not dropped;
//! - `IORING_FEAT_EXT_ARG` (5.11): a wait with a time limit, which `Drop`
//!   needs to wait for cancelled operations without waiting for ever.
//!
//! [`setup::probe`](crate::setup::probe) checks all of them before a run
//! starts. `IORING_SETUP_COOP_TASKRUN` (5.19) is used where the kernel has
//! it, and left out where it does not.
//!
//! One more thing to know: after a thread has used a ring, the kernel may
//! cut that thread's next blocking wait short with `EINTR` (io_uring asks
//! for the thread's attention the way a signal does). Every wait of this
//! project retries on `EINTR`; a loop of your own that shares the thread
//! with a ring must too.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::rc::Rc;
use std::time::Duration;

use io_uring::{IoUring, opcode, squeue, types};
use socket2::SockAddr;

mod completion;
mod drop;
mod options;
mod table;
#[cfg(test)]
mod tests;

pub use self::completion::{Completion, TimeoutRefused};
use self::options::Faults;
pub use self::options::RingOptions;
pub use self::table::OpId;
use self::table::{Entry, Table};

/// A descriptor shared between its user and the operations queued on it:
/// it closes when the last share is dropped, so never while the kernel may
/// still act on its number.
///
/// ```
/// use std::net::{TcpListener, TcpStream};
/// use uring::ring::SharedFd;
///
/// let listener = TcpListener::bind("127.0.0.1:0")?;
/// let stream = TcpStream::connect(listener.local_addr()?)?;
/// let fd = SharedFd::new(stream);
/// let for_the_ring = fd.clone();
/// drop(fd); // The socket stays open: the ring's share holds it.
/// assert!(for_the_ring.raw() >= 0);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SharedFd(Rc<OwnedFd>);

impl SharedFd {
    /// Takes ownership of `fd` (a socket, a file, anything with a
    /// descriptor).
    pub fn new(fd: impl Into<OwnedFd>) -> SharedFd {
        SharedFd(Rc::new(fd.into()))
    }

    /// The number the kernel knows it by.
    pub fn raw(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}

/// An I/O operation and the memory it lends the kernel.
#[derive(Debug)]
pub enum Op {
    /// `connect(2)`; the address is read by the kernel, boxed so that it
    /// does not move while the table grows.
    Connect(Box<SockAddr>),
    /// `send(2)` of `buf[from..]`.
    Send {
        /// The bytes; the kernel reads them.
        buf: Vec<u8>,
        /// Where this send starts (after a short send, the rest goes again).
        from: usize,
    },
    /// `recv(2)` into the whole of `buf` (its length, not its capacity):
    /// the kernel writes into it.
    Recv(Vec<u8>),
}

/// What the ring counts: the system calls, and what each one carried.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RingStats {
    /// `io_uring_enter` calls (each submit or wait is one).
    pub enters: u64,
    /// Submission entries handed to the kernel (timeouts and cancels
    /// included).
    pub submitted: u64,
    /// Completions read (timeouts and cancels included).
    pub completed: u64,
    /// Linked timeouts that fired (each cancelled its operation).
    pub timeouts_fired: u64,
    /// Cancel requests sent.
    pub cancels: u64,
    /// Times the completion queue was found full, its overflow kept by
    /// the kernel and fetched by the next enter.
    pub overflows: u64,
}

/// One `io_uring` with its op table.
///
/// # Example
///
/// A connect to a listener on loopback, submitted, waited for, and its
/// address handed back with the completion:
///
/// ```
/// use std::net::TcpListener;
/// use std::time::Duration;
///
/// use socket2::{Domain, SockAddr, Socket, Type};
/// use uring::ring::{Op, Ring, SharedFd};
///
/// let listener = TcpListener::bind("127.0.0.1:0")?;
/// let addr = SockAddr::from(listener.local_addr()?);
/// let socket = SharedFd::new(Socket::new(Domain::IPV4, Type::STREAM, None)?);
///
/// let mut ring = Ring::new(8)?;
/// let id = ring.connect(7, &socket, addr, Duration::from_secs(5))?;
/// let mut done = Vec::new();
/// while done.is_empty() {
///     ring.submit_and_wait()?;
///     ring.reap(&mut done);
/// }
/// assert_eq!((done[0].id, done[0].owner), (id, 7));
/// assert!(matches!(done[0].op, Op::Connect(_)));
/// assert_eq!(done[0].result.as_ref().ok(), Some(&0));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Ring {
    ring: IoUring,
    table: Table,
    stats: RingStats,
    /// Completions the kernel reported dropped when last looked at.
    dropped: u32,
    faults: Faults,
}

impl std::fmt::Debug for Ring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("live", &self.table.live())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Ring {
    /// A ring with room for `entries` submissions per batch (rounded up to
    /// a power of two by the kernel) and four times as many completions.
    /// The errors are `io_uring_setup`'s: see `setup.rs` for what they mean.
    pub fn new(entries: u32) -> io::Result<Ring> {
        RingOptions::new(entries).build()
    }

    /// The counters so far.
    pub fn stats(&self) -> RingStats {
        self.stats
    }

    /// Operations (timeouts and cancels included) the kernel still holds.
    pub fn in_flight(&self) -> usize {
        self.table.live()
    }

    /// The sizes the kernel gave the queues: submissions, completions.
    pub fn sizes(&self) -> (u32, u32) {
        (
            self.ring.params().sq_entries(),
            self.ring.params().cq_entries(),
        )
    }

    // ANCHOR: recv
    /// Queues a `recv` of up to `buf.len()` bytes on `fd` for `owner`, with
    /// a linked timeout when `timeout` is given: the read completes with
    /// `ECANCELED` if nothing came within it. The buffer, and a share of
    /// the descriptor, are the kernel's until the completion.
    pub fn recv(
        &mut self,
        owner: usize,
        fd: &SharedFd,
        mut buf: Vec<u8>,
        timeout: Option<Duration>,
    ) -> io::Result<OpId> {
        let (ptr, len) = (buf.as_mut_ptr(), buf_len(buf.len()));
        // The pointer is into the vector's heap block, which does not move
        // when the vector itself moves into the table.
        let entry = opcode::Recv::new(types::Fd(fd.raw()), ptr, len).build();
        self.push_io(Op::Recv(buf), owner, fd, entry, timeout)
    }
    // ANCHOR_END: recv

    /// Queues a `send` of `buf[from..]` on `fd` for `owner`. `MSG_NOSIGNAL`:
    /// a peer that has gone makes the send fail with `EPIPE` instead of
    /// killing the process with `SIGPIPE`.
    pub fn send(
        &mut self,
        owner: usize,
        fd: &SharedFd,
        buf: Vec<u8>,
        from: usize,
    ) -> io::Result<OpId> {
        let rest = &buf[from..];
        let (ptr, len) = (rest.as_ptr(), buf_len(rest.len()));
        let entry = opcode::Send::new(types::Fd(fd.raw()), ptr, len)
            .flags(libc::MSG_NOSIGNAL)
            .build();
        self.push_io(Op::Send { buf, from }, owner, fd, entry, None)
    }

    /// Queues a `connect` of `fd` to `addr` for `owner`, bounded by
    /// `timeout` (a linked timeout, as for [`recv`](Self::recv)).
    pub fn connect(
        &mut self,
        owner: usize,
        fd: &SharedFd,
        addr: SockAddr,
        timeout: Duration,
    ) -> io::Result<OpId> {
        let addr = Box::new(addr);
        let (ptr, len) = (addr.as_ptr().cast::<libc::sockaddr>(), addr.len());
        let entry = opcode::Connect::new(types::Fd(fd.raw()), ptr, len).build();
        self.push_io(Op::Connect(addr), owner, fd, entry, Some(timeout))
    }

    // ANCHOR: cancel
    /// Asks the kernel to cancel `target`. Nothing comes back from this
    /// call: `target` still completes, with `ECANCELED` or with the result
    /// it had already reached, and its buffer returns only then.
    pub fn cancel(&mut self, target: OpId) -> io::Result<()> {
        let id = self.table.insert(Entry::Cancel);
        let entry = opcode::AsyncCancel::new(target.0).build().user_data(id.0);
        match self.push(&[entry]) {
            Ok(()) => {
                self.stats.cancels += 1;
                Ok(())
            }
            Err(e) => {
                // The kernel never saw it: nothing will complete for it.
                self.table.remove(id);
                Err(e)
            }
        }
    }
    // ANCHOR_END: cancel

    // ANCHOR: submit
    /// Hands the kernel every entry queued since the last call and sleeps
    /// until at least one operation has completed: one system call for the
    /// whole turn. Returns at once when nothing is in flight.
    ///
    /// Fails, naming the count, if the kernel has dropped completions: an
    /// operation whose completion is lost would leave its lane waiting for
    /// ever, so the run stops instead.
    pub fn submit_and_wait(&mut self) -> io::Result<()> {
        self.check_dropped()?;
        let want = usize::from(self.table.live() > 0);
        let mut busy = 0;
        loop {
            self.stats.enters += 1;
            match self.enter(want) {
                Ok(()) => return Ok(()),
                // A signal (tests do not block them as the binary does).
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                // The kernel has completions it cannot post until we read
                // some (older kernels say so instead of keeping them):
                // give the caller what is there to reap, then go again.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    if !self.ring.completion().is_empty() {
                        return Ok(());
                    }
                    busy += 1;
                    if busy >= BUSY_RETRIES {
                        return Err(io::Error::other(format!(
                            "io_uring_enter said EBUSY {busy} times with no completion to \
                             reap: the completion queue cannot drain"
                        )));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
    // ANCHOR_END: submit

    /// Hands the kernel every entry queued so far, without waiting.
    pub fn submit(&mut self) -> io::Result<()> {
        self.stats.enters += 1;
        self.enter(0)
    }

    /// One `io_uring_enter`: submits what is queued and waits for `want`
    /// completions. A full completion queue's overflow, which the kernel
    /// keeps (`IORING_FEAT_NODROP`), is fetched by the same call.
    fn enter(&mut self, want: usize) -> io::Result<()> {
        if self.faults.busy > 0 {
            self.faults.busy -= 1;
            return Err(io::Error::from_raw_os_error(libc::EBUSY));
        }
        if self.ring.submission().cq_overflow() {
            self.stats.overflows += 1;
        }
        let queued = self.ring.submission().len();
        let submitted = self.ring.submitter().submit_and_wait(want)?;
        if submitted < queued {
            // The kernel stopped part-way (out of memory for requests, say)
            // and left the rest queued for the next enter. A pair could be
            // split there: a read gone in without its linked timeout.
            return Err(io::Error::other(format!(
                "io_uring_enter took {submitted} of {queued} entries: a read may have gone \
                 without its time limit"
            )));
        }
        Ok(())
    }

    /// Fails if the kernel dropped completions since the last look.
    fn check_dropped(&mut self) -> io::Result<()> {
        let dropped = self.ring.completion().overflow() + self.faults.dropped;
        if dropped > self.dropped {
            let lost = dropped - self.dropped;
            self.dropped = dropped;
            return Err(io::Error::other(format!(
                "the kernel dropped {lost} completions (its completion queue of {} was full): \
                 their operations will never report; make the queue larger",
                self.sizes().1
            )));
        }
        Ok(())
    }

    // ANCHOR: push_timed
    /// Puts a caller's operation in the table and queues its entry,
    /// followed by a linked timeout when one is given: both in one push,
    /// or neither.
    fn push_io(
        &mut self,
        op: Op,
        owner: usize,
        fd: &SharedFd,
        entry: squeue::Entry,
        timeout: Option<Duration>,
    ) -> io::Result<OpId> {
        let id = self.table.insert(Entry::Io {
            op,
            owner,
            _fd: fd.clone(),
            timer: None,
            answered: None,
            timer_said: None,
        });
        let entry = entry.user_data(id.0);
        let pushed = match timeout {
            None => self.push(&[entry]),
            Some(limit) => {
                let spec = Box::new(self.faults.timespec(limit));
                let ptr: *const types::Timespec = &*spec;
                let timer = self.table.insert(Entry::Timeout {
                    _spec: spec,
                    target: id,
                });
                if let Some(Entry::Io { timer: t, .. }) = self.table.get_mut(id) {
                    *t = Some(timer);
                }
                let link = opcode::LinkTimeout::new(ptr).build().user_data(timer.0);
                let pushed = self.push(&[entry.flags(squeue::Flags::IO_LINK), link]);
                if pushed.is_err() {
                    self.table.remove(timer);
                }
                pushed
            }
        };
        match pushed {
            Ok(()) => Ok(id),
            Err(e) => {
                // The kernel never saw the entry: its memory can go.
                self.table.remove(id);
                Err(e)
            }
        }
    }
    // ANCHOR_END: push_timed

    // ANCHOR: push
    /// Queues `entries` together (a linked pair must not be split by a
    /// submission), submitting what is queued first if they do not fit.
    fn push(&mut self, entries: &[squeue::Entry]) -> io::Result<()> {
        let room = {
            let sq = self.ring.submission();
            sq.capacity() - sq.len()
        };
        if room < entries.len() {
            self.submit()?;
        }
        // SAFETY: every pointer in these entries is into memory owned by
        // the op table (a buffer, an address, a `timespec`), and every
        // descriptor is one the table holds a `SharedFd` share of. A place
        // is freed only in `reap`, when the kernel has posted the entry's
        // completion, or never (`Table::leak`, in `drop`, when the kernel
        // may still hold it). So the table, their owner, keeps each buffer
        // alive and untouched, and each descriptor open and naming the
        // same socket, for as long as the kernel may use it.
        unsafe { self.ring.submission().push_multiple(entries) }
            .map_err(|_| io::Error::other("the submission queue is full after a submit"))?;
        self.stats.submitted += entries.len() as u64;
        Ok(())
    }
    // ANCHOR_END: push
}

/// How many `EBUSY`s in a row, with nothing to reap, make an error.
const BUSY_RETRIES: u32 = 3;

/// `ECANCELED`: what a cancelled operation, or a linked timeout whose
/// operation finished first, completes with.
fn is_cancel(result: &io::Result<usize>) -> bool {
    matches!(result, Err(e) if is_ecanceled(e))
}

fn is_ecanceled(e: &io::Error) -> bool {
    e.raw_os_error() == Some(libc::ECANCELED)
}

/// A buffer's length as the kernel's 32-bit count (every buffer here is a
/// few KiB).
fn buf_len(len: usize) -> u32 {
    u32::try_from(len).expect("buffers here are far below 4 GiB")
}
