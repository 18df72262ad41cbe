//! The slow server in a process of its own, started with `fork(2)`.
//!
//! An embedded [`SlowServer`] shares the process's descriptor limit with the
//! client it serves (see [`crate::limits`]), and its threads share the CPU
//! scheduler's view of "this process". For runs of many thousands of
//! connections the server needs a process of its own. [`ForkedServer`] is
//! that, without a separate binary to find and launch: it is the
//! `fork_task_server` pattern of Perl's AnyEvent::Task (Doug Hoyte's CPAN
//! documentation; the book's bibliography):
//!
//! 1. the parent binds the listening socket *before* forking, so it knows
//!    the address and clients can connect as soon as `start` returns (the
//!    kernel queues their connections until the child accepts them);
//! 2. a *keep-alive pipe*: the child serves until it reads end-of-file on
//!    it, which happens when the parent closes its end, or when the parent
//!    dies for any reason, because the kernel closes a dead process's
//!    descriptors. So a server never outlives its client;
//! 3. a *stats pipe*: on its way out, the child writes its final
//!    [`ServerStats`] as JSON, and the parent reads to end-of-file and then
//!    reaps the child with `waitpid`.
//!
//! # Fork only while single-threaded
//!
//! `fork` copies the memory of the whole process but only the *calling*
//! thread. A lock that another thread held at that moment (the allocator's,
//! stdout's) stays locked forever in the child, and the child deadlocks the
//! first time it needs it. So [`ForkedServer::start`] counts the process's
//! threads first and refuses to fork when there is more than one. Start the
//! forked server first thing in `main`, before anything spawns a thread; a
//! test harness runs every test on a thread of its own, so a forked server
//! can only be tested from a binary with `harness = false`
//! (`tests/forked.rs`).
//!
//! Not here: the server itself ([`crate::server`]).

use std::fs;
use std::io::{self, PipeReader, PipeWriter, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::os::fd::{AsRawFd, RawFd};
use std::panic::{self, AssertUnwindSafe};

use nix::errno::Errno;
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid, fork};

use crate::server::{ServerConfig, ServerStats, SlowServer, bind_listener_for};

/// Where Linux lists the threads of the calling process, one entry each.
const TASK_DIR: &str = "/proc/self/task";

/// Where Linux lists the open descriptors of the calling process.
const FD_DIR: &str = "/proc/self/fd";

/// Exit status of a child whose server failed to start or to report.
const EXIT_FAILED: i32 = 1;

/// Exit status of a child whose server panicked (it never should).
const EXIT_PANICKED: i32 = 2;

/// A slow server running in a child process.
///
/// Dropping it stops the child and reaps it, like [`finish`](Self::finish)
/// without the statistics.
///
/// # Example
///
/// ```no_run
/// use testbed::forked::ForkedServer;
/// use testbed::server::ServerConfig;
///
/// fn main() -> std::io::Result<()> {
///     // First thing in `main`, while the process has one thread.
///     let server = ForkedServer::start(ServerConfig::default())?;
///     println!("serving on {} (pid {})", server.addr(), server.pid());
///     // ... run the client against `server.addr()`, with threads if it likes ...
///     let stats = server.finish()?;
///     println!("{stats}");
///     Ok(())
/// }
/// ```
#[derive(Debug)]
pub struct ForkedServer {
    pid: Pid,
    addr: SocketAddr,
    /// The parent's end of the keep-alive pipe: the child serves while it is
    /// open. `None` once closed.
    keepalive: Option<PipeWriter>,
    /// The parent's end of the stats pipe. `None` once read.
    stats: Option<PipeReader>,
    /// Whether `waitpid` has collected the child.
    reaped: bool,
}

impl ForkedServer {
    /// Forks a server listening on a free loopback port (`127.0.0.1:0`).
    ///
    /// Fails without forking if the process has more than one thread (see
    /// the module docs).
    pub fn start(config: ServerConfig) -> io::Result<ForkedServer> {
        ForkedServer::bind(SocketAddr::from(([127, 0, 0, 1], 0)), config)
    }

    /// Forks a server listening on `addr`. Same rules as [`start`](Self::start).
    pub fn bind(addr: SocketAddr, config: ServerConfig) -> io::Result<ForkedServer> {
        let threads = thread_count()?;
        if threads != 1 {
            return Err(io::Error::other(format!(
                "ForkedServer needs a single-threaded process, this one has {threads} threads: \
                 fork copies only the calling thread, and locks held by the others would stay \
                 locked in the child"
            )));
        }
        let listener = bind_listener_for(addr, &config)?;
        let addr = listener.local_addr()?;
        // std's pipes are close-on-exec, so a program the parent runs later
        // cannot inherit the keep-alive pipe and keep the server alive.
        let (keepalive_rx, keepalive_tx) = io::pipe()?;
        let (stats_rx, stats_tx) = io::pipe()?;

        // SAFETY: `fork` is unsafe because the child of a multi-threaded
        // process may only call async-signal-safe functions: the other
        // threads are gone, and any lock they held stays held. We checked
        // just above that this process has exactly one thread, and a
        // single-threaded process only gains threads by its own action; it
        // took none between the check and this call. So no lock is held by
        // a vanished thread, and the child may allocate, spawn threads and
        // run the server. The child never returns from this function (see
        // `child_main`), so it never runs the parent's code or destructors.
        match unsafe { fork() }? {
            ForkResult::Child => {
                // The parent's ends: if the child kept them, it would hold
                // its own keep-alive pipe open and never see end-of-file.
                drop(keepalive_tx);
                drop(stats_rx);
                child_main(listener, keepalive_rx, stats_tx, config)
            }
            ForkResult::Parent { child } => {
                // The child's ends and the listener now live in the child.
                // Holding the write end of the stats pipe here would keep
                // `finish` from ever seeing end-of-file.
                drop(keepalive_rx);
                drop(stats_tx);
                drop(listener);
                Ok(ForkedServer {
                    pid: child,
                    addr,
                    keepalive: Some(keepalive_tx),
                    stats: Some(stats_rx),
                    reaped: false,
                })
            }
        }
    }

    /// The address clients connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        // A pid from a successful fork is positive.
        self.pid.as_raw().unsigned_abs()
    }

    /// Stops the server and returns its final statistics: closes the
    /// keep-alive pipe, reads the statistics to end-of-file, reaps the child.
    pub fn finish(mut self) -> io::Result<ServerStats> {
        self.stop()
    }

    fn stop(&mut self) -> io::Result<ServerStats> {
        // The child's signal to shut down and report.
        drop(self.keepalive.take());
        let mut json = Vec::new();
        // Read everything *before* waiting: a child blocked writing to a full
        // pipe would never exit. (A report is far smaller than a pipe's
        // buffer, but the order costs nothing.)
        let read = match self.stats.take() {
            Some(mut stats) => stats.read_to_end(&mut json).map(drop),
            None => Ok(()),
        };
        let status = self.reap()?;
        read?;
        let how = match status {
            WaitStatus::Exited(_, 0) => None,
            WaitStatus::Exited(_, EXIT_FAILED) => Some("exited 1 (it failed)".to_owned()),
            WaitStatus::Exited(_, EXIT_PANICKED) => Some("exited 2 (it panicked)".to_owned()),
            WaitStatus::Exited(_, code) => Some(format!("exited {code}")),
            WaitStatus::Signaled(_, signal, _) => Some(format!("was killed by {signal}")),
            other => Some(format!("{other:?}")),
        };
        if let Some(how) = how {
            return Err(io::Error::other(format!(
                "the forked server (pid {}) {how}",
                self.pid
            )));
        }
        serde_json::from_slice(&json).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("forked server sent unreadable statistics: {e}"),
            )
        })
    }

    /// Waits for the child to exit, once.
    fn reap(&mut self) -> io::Result<WaitStatus> {
        loop {
            match waitpid(self.pid, None) {
                Ok(status @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => {
                    self.reaped = true;
                    return Ok(status);
                }
                // Stopped or continued by a job-control signal: still alive.
                Ok(_) | Err(Errno::EINTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

impl Drop for ForkedServer {
    fn drop(&mut self) {
        if !self.reaped {
            // Quietly: a destructor has nobody to report to.
            let _ = self.stop();
        }
    }
}

/// How many threads the calling process has (Linux: entries of
/// `/proc/self/task`). Code that forks checks this is 1 first.
pub fn thread_count() -> io::Result<usize> {
    Ok(fs::read_dir(TASK_DIR)?.count())
}

/// The child: serve until the keep-alive pipe closes, report, exit.
///
/// It never returns, and never unwinds, into the parent's code: the caller's
/// stack is a copy of the parent's, and returning would run the rest of the
/// parent's program (and its destructors) a second time. It never prints
/// either: its stdout and stderr are the parent's.
fn child_main(
    listener: TcpListener,
    keepalive: PipeReader,
    stats: PipeWriter,
    config: ServerConfig,
) -> ! {
    // A panic would print its message on the parent's stderr; the exit
    // status tells the parent instead.
    panic::set_hook(Box::new(|_| {}));
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        close_inherited(&[
            listener.as_raw_fd(),
            keepalive.as_raw_fd(),
            stats.as_raw_fd(),
        ]);
        serve_until_orphaned(listener, keepalive, stats, config)
    }));
    let code = match outcome {
        Ok(Ok(())) => 0,
        Ok(Err(_)) => EXIT_FAILED,
        Err(_) => EXIT_PANICKED,
    };
    // SAFETY: `_exit` ends the process at once and has no preconditions; it
    // is `unsafe` only because every foreign function is. It is `_exit`,
    // not `exit`, on purpose: no `atexit` handlers and no flushing of stdio
    // buffers copied from the parent, whose contents the parent will write
    // itself.
    unsafe { libc::_exit(code) }
}

fn serve_until_orphaned(
    listener: TcpListener,
    mut keepalive: PipeReader,
    mut stats: PipeWriter,
    config: ServerConfig,
) -> io::Result<()> {
    let server = SlowServer::from_listener(listener, config)?;
    // Nothing is ever written on the keep-alive pipe: this read returns when
    // the last write end closes (or fails, which means the same).
    let _ = io::copy(&mut keepalive, &mut io::sink());
    let final_stats = server.shutdown();
    serde_json::to_writer(&mut stats, &final_stats)?;
    stats.flush()
}

/// Closes every descriptor a forked child inherited except stdio and
/// `keep`. Call it first thing in a child.
///
/// The child got copies of *all* the parent's descriptors: client sockets
/// (which then would not close when the parent closes them) and the pipes
/// of forked servers (whose children would then wait for an end-of-file
/// that this child prevents: the server's keep-alive pipe). Nothing in the
/// child uses them, and the child never returns to the code that owns
/// them. 02-fork's workers call it too, for the same reason.
pub fn close_inherited(keep: &[RawFd]) {
    let Ok(entries) = fs::read_dir(FD_DIR) else {
        return;
    };
    // Collect first: the directory listing itself holds a descriptor.
    let fds: Vec<RawFd> = entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    for fd in fds {
        if fd > 2 && !keep.contains(&fd) {
            // EBADF for the listing's own descriptor, already closed.
            let _ = nix::unistd::close(fd);
        }
    }
}
