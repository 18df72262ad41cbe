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
//! Not here: what the operations are for (`lane.rs`), making the ring
//! (`setup.rs`).

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

use io_uring::{IoUring, cqueue, opcode, squeue, types};
use socket2::SockAddr;

/// One operation in the ring: the place of its entry in the op table and
/// that entry's generation, packed into the 64-bit `user_data` the kernel
/// gives back in the completion. The generation makes a stale id (an
/// operation that completed, its place since reused) name nothing instead
/// of somebody else's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpId(u64);

impl OpId {
    fn new(index: usize, generation: u32) -> OpId {
        OpId((u64::from(generation) << 32) | index as u64)
    }

    fn index(self) -> usize {
        (self.0 & u64::from(u32::MAX)) as usize
    }

    fn generation(self) -> u32 {
        (self.0 >> 32) as u32
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

/// What a place in the op table holds.
#[derive(Debug)]
enum Entry {
    /// An operation of a caller (`owner` is its lane).
    Io { op: Op, owner: usize },
    /// A linked timeout: the kernel copies the `timespec` when it takes the
    /// entry, but it stays here, owned, until its completion all the same,
    /// so that no reader has to know that detail to see it is sound.
    Timeout {
        /// Never read here: the kernel reads it.
        _spec: Box<types::Timespec>,
    },
    /// A cancel request: it owns nothing, but it completes like any entry.
    Cancel,
}

/// A finished operation of a caller, with the memory it lent.
#[derive(Debug)]
pub struct Completion {
    /// Which operation.
    pub id: OpId,
    /// Who started it (the `owner` given at submission).
    pub owner: usize,
    /// The operation, its buffer back in the caller's hands.
    pub op: Op,
    /// The kernel's answer: a byte count, or the error (`ECANCELED` for an
    /// operation cancelled by its linked timeout or by a cancel request).
    pub result: io::Result<usize>,
}

impl Completion {
    /// True when the operation was cancelled before it could finish.
    pub fn cancelled(&self) -> bool {
        matches!(&self.result, Err(e) if e.raw_os_error() == Some(libc::ECANCELED))
    }
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
/// use std::os::fd::AsRawFd;
/// use std::time::Duration;
///
/// use socket2::{Domain, SockAddr, Socket, Type};
/// use uring::ring::{Op, Ring};
///
/// let listener = TcpListener::bind("127.0.0.1:0")?;
/// let addr = SockAddr::from(listener.local_addr()?);
/// let socket = Socket::new(Domain::IPV4, Type::STREAM, None)?;
///
/// let mut ring = Ring::new(8)?;
/// let id = ring.connect(7, socket.as_raw_fd(), addr, Duration::from_secs(5))?;
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
    /// Every operation the kernel holds, by index; `None` is a free place.
    table: Vec<(u32, Option<Entry>)>,
    free: Vec<usize>,
    /// Places in use: when zero, the kernel holds nothing of ours.
    live: usize,
    stats: RingStats,
}

impl std::fmt::Debug for Ring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("live", &self.live)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Ring {
    /// A ring with room for `entries` submissions per batch (rounded up to
    /// a power of two by the kernel) and four times as many completions.
    /// The errors are `io_uring_setup`'s: see `setup.rs` for what they mean.
    pub fn new(entries: u32) -> io::Result<Ring> {
        let entries = entries.clamp(8, 4096);
        let ring = IoUring::builder()
            .setup_clamp()
            .setup_cqsize(entries * 4)
            .build(entries)?;
        Ok(Ring {
            ring,
            table: Vec::new(),
            free: Vec::new(),
            live: 0,
            stats: RingStats::default(),
        })
    }

    /// The counters so far.
    pub fn stats(&self) -> RingStats {
        self.stats
    }

    /// Operations (timeouts and cancels included) the kernel still holds.
    pub fn in_flight(&self) -> usize {
        self.live
    }

    // ANCHOR: recv
    /// Queues a `recv` of up to `buf.len()` bytes on `fd` for `owner`, with
    /// a linked timeout when `timeout` is given: the read completes with
    /// `ECANCELED` if nothing came within it. The buffer is the kernel's
    /// until the completion gives it back.
    pub fn recv(
        &mut self,
        owner: usize,
        fd: RawFd,
        mut buf: Vec<u8>,
        timeout: Option<Duration>,
    ) -> io::Result<OpId> {
        let (ptr, len) = (buf.as_mut_ptr(), buf_len(buf.len()));
        let id = self.insert(Entry::Io {
            op: Op::Recv(buf),
            owner,
        });
        // The pointer is into the vector's heap block, which does not move
        // when the vector itself moves into the table.
        let entry = opcode::Recv::new(types::Fd(fd), ptr, len).build();
        self.push_timed(id, entry, timeout)
    }
    // ANCHOR_END: recv

    /// Queues a `send` of `buf[from..]` on `fd` for `owner`. `MSG_NOSIGNAL`:
    /// a peer that has gone makes the send fail with `EPIPE` instead of
    /// killing the process with `SIGPIPE`.
    pub fn send(&mut self, owner: usize, fd: RawFd, buf: Vec<u8>, from: usize) -> io::Result<OpId> {
        let rest = &buf[from..];
        let (ptr, len) = (rest.as_ptr(), buf_len(rest.len()));
        let id = self.insert(Entry::Io {
            op: Op::Send { buf, from },
            owner,
        });
        let entry = opcode::Send::new(types::Fd(fd), ptr, len)
            .flags(libc::MSG_NOSIGNAL)
            .build();
        self.push_timed(id, entry, None)
    }

    /// Queues a `connect` of `fd` to `addr` for `owner`, bounded by
    /// `timeout` (a linked timeout, as for [`recv`](Self::recv)).
    pub fn connect(
        &mut self,
        owner: usize,
        fd: RawFd,
        addr: SockAddr,
        timeout: Duration,
    ) -> io::Result<OpId> {
        let addr = Box::new(addr);
        let (ptr, len) = (addr.as_ptr().cast::<libc::sockaddr>(), addr.len());
        let id = self.insert(Entry::Io {
            op: Op::Connect(addr),
            owner,
        });
        let entry = opcode::Connect::new(types::Fd(fd), ptr, len).build();
        self.push_timed(id, entry, Some(timeout))
    }

    // ANCHOR: cancel
    /// Asks the kernel to cancel `target`. Nothing comes back from this
    /// call: `target` still completes, with `ECANCELED` or with the result
    /// it had already reached, and its buffer returns only then.
    pub fn cancel(&mut self, target: OpId) -> io::Result<()> {
        let id = self.insert(Entry::Cancel);
        self.stats.cancels += 1;
        let entry = opcode::AsyncCancel::new(target.0).build().user_data(id.0);
        self.push(&[entry])
    }
    // ANCHOR_END: cancel

    // ANCHOR: submit
    /// Hands the kernel every entry queued since the last call and sleeps
    /// until at least one operation has completed: one system call for the
    /// whole turn. Returns at once when nothing is in flight.
    pub fn submit_and_wait(&mut self) -> io::Result<()> {
        let want = usize::from(self.live > 0);
        loop {
            self.stats.enters += 1;
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                // A signal (tests do not block them as the binary does).
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(e),
            }
        }
    }
    // ANCHOR_END: submit

    /// Hands the kernel every entry queued so far, without waiting.
    pub fn submit(&mut self) -> io::Result<()> {
        self.stats.enters += 1;
        self.ring.submit().map(drop)
    }

    /// Moves every completion that has arrived into `done`, with its
    /// memory: the caller's operations only (timeouts and cancels end
    /// here, their places freed).
    pub fn reap(&mut self, done: &mut Vec<Completion>) {
        let arrived: Vec<cqueue::Entry> = self.ring.completion().collect();
        for cqe in arrived {
            self.stats.completed += 1;
            let id = OpId(cqe.user_data());
            let result = match cqe.result() {
                n if n >= 0 => Ok(n as usize),
                n => Err(io::Error::from_raw_os_error(-n)),
            };
            match self.remove(id) {
                Entry::Io { op, owner } => done.push(Completion {
                    id,
                    owner,
                    op,
                    result,
                }),
                Entry::Timeout { .. } => {
                    if matches!(&result, Err(e) if e.raw_os_error() == Some(libc::ETIME)) {
                        self.stats.timeouts_fired += 1;
                    }
                }
                Entry::Cancel => {}
            }
        }
    }

    // ANCHOR: push_timed
    /// Queues `entry` (an operation already in the table as `id`), followed
    /// by a linked timeout when one is given.
    fn push_timed(
        &mut self,
        id: OpId,
        entry: squeue::Entry,
        timeout: Option<Duration>,
    ) -> io::Result<OpId> {
        let entry = entry.user_data(id.0);
        let pushed = match timeout {
            None => self.push(&[entry]),
            Some(limit) => {
                let spec = Box::new(types::Timespec::from(limit));
                let ptr: *const types::Timespec = &*spec;
                let timer = self.insert(Entry::Timeout { _spec: spec });
                let link = opcode::LinkTimeout::new(ptr).build().user_data(timer.0);
                let pushed = self.push(&[entry.flags(squeue::Flags::IO_LINK), link]);
                if pushed.is_err() {
                    self.remove(timer);
                }
                pushed
            }
        };
        match pushed {
            Ok(()) => Ok(id),
            Err(e) => {
                // The kernel never saw the entry: its memory can go.
                self.remove(id);
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
            self.stats.enters += 1;
            self.ring.submit()?;
        }
        self.stats.submitted += entries.len() as u64;
        // SAFETY: every pointer in these entries is into memory owned by
        // the op table (a buffer, an address, a `timespec`), whose place is
        // freed only in `reap`, when the kernel has posted the entry's
        // completion, or in `drop`, after waiting for every completion (or
        // by leaking it). So each buffer's owner, the table, keeps it alive
        // and untouched for as long as the kernel may use it.
        unsafe { self.ring.submission().push_multiple(entries) }
            .map_err(|_| io::Error::other("the submission queue is full after a submit"))
    }
    // ANCHOR_END: push

    fn insert(&mut self, entry: Entry) -> OpId {
        self.live += 1;
        match self.free.pop() {
            Some(index) => {
                let place = &mut self.table[index];
                place.0 = place.0.wrapping_add(1);
                place.1 = Some(entry);
                OpId::new(index, place.0)
            }
            None => {
                self.table.push((0, Some(entry)));
                OpId::new(self.table.len() - 1, 0)
            }
        }
    }

    fn remove(&mut self, id: OpId) -> Entry {
        let place = &mut self.table[id.index()];
        assert_eq!(
            place.0,
            id.generation(),
            "a completion for a stale operation"
        );
        let entry = place.1.take().expect("one completion per operation");
        self.free.push(id.index());
        self.live -= 1;
        entry
    }
}

/// A buffer's length as the kernel's 32-bit count (every buffer here is a
/// few KiB).
fn buf_len(len: usize) -> u32 {
    u32::try_from(len).expect("buffers here are far below 4 GiB")
}

impl Drop for Ring {
    /// A ring dropped with operations in flight must not free their
    /// buffers while the kernel may still write into them: closing the
    /// ring's descriptor does *not* wait for its operations. So every
    /// operation is cancelled and its completion awaited (a second at
    /// most); what is still out after that is leaked, never freed.
    fn drop(&mut self) {
        if self.live == 0 {
            return;
        }
        let ours: Vec<OpId> = (self.table.iter().enumerate())
            .filter(|(_, (_, entry))| matches!(entry, Some(Entry::Io { .. })))
            .map(|(index, (generation, _))| OpId::new(index, *generation))
            .collect();
        for id in ours {
            if self.cancel(id).is_err() {
                break;
            }
        }
        let limit = types::Timespec::from(Duration::from_secs(1));
        let args = types::SubmitArgs::new().timespec(&limit);
        let mut done = Vec::new();
        while self.live > 0 {
            if self.ring.submitter().submit_with_args(1, &args).is_err() {
                break;
            }
            self.reap(&mut done);
            done.clear();
        }
        if self.live > 0 {
            std::mem::forget(std::mem::take(&mut self.table));
        }
    }
}
