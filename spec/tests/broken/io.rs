//! The reactor (mio, edge-triggered) and a line reader on it.

use std::collections::{HashMap, HashSet};
use std::future::poll_fn;
use std::io::{ErrorKind, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::Duration;

use mio::{Events, Interest, Poll as MioPoll, Token};

use super::Fault;
use super::core::Core;

const NOTIFY: Token = Token(0);

pub(super) struct Reactor {
    poll: MioPoll,
    events: Events,
    readers: HashMap<Token, Waker>,
    parked_once: HashSet<Token>,
    seen_fds: HashSet<RawFd>,
    next: usize,
}

impl Reactor {
    pub(super) fn new() -> std::io::Result<(Reactor, mio::Waker)> {
        let poll = MioPoll::new()?;
        let notify = mio::Waker::new(poll.registry(), NOTIFY)?;
        let reactor = Reactor {
            poll,
            events: Events::with_capacity(64),
            readers: HashMap::new(),
            parked_once: HashSet::new(),
            seen_fds: HashSet::new(),
            next: 1,
        };
        Ok((reactor, notify))
    }

    /// Waits up to `timeout` and wakes the readers of the sockets that
    /// became readable; how many events came.
    pub(super) fn poll(
        &mut self,
        timeout: Option<Duration>,
        fault: Option<Fault>,
    ) -> Result<usize, String> {
        match self.poll.poll(&mut self.events, timeout) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => return Ok(0),
            Err(e) => return Err(e.to_string()),
        }
        let mut n = 0;
        for event in &self.events {
            n += 1;
            if fault == Some(Fault::IgnoreHangUp) && event.is_read_closed() {
                continue;
            }
            if let Some(waker) = self.readers.remove(&event.token()) {
                waker.wake();
            }
        }
        Ok(n)
    }

    pub(super) fn clear(&mut self) {
        self.readers.clear();
    }
}

/// The client end of the scenario's socket, and what was read of a line.
pub(super) struct Conn {
    core: Rc<Core>,
    stream: mio::net::TcpStream,
    token: Token,
    buffer: Vec<u8>,
}

impl Conn {
    pub(super) fn new(core: &Rc<Core>, stream: std::net::TcpStream) -> Conn {
        stream.set_nonblocking(true).expect("a fresh socket");
        let mut stream = mio::net::TcpStream::from_std(stream);
        let mut reactor = core.reactor.borrow_mut();
        let token = Token(reactor.next);
        reactor.next += 1;
        let fd = stream.as_raw_fd();
        let known = !reactor.seen_fds.insert(fd);
        if !(known && core.has(Fault::ForgetReusedFd)) {
            let interest = if core.has(Fault::WrongInterest) {
                Interest::WRITABLE
            } else {
                Interest::READABLE
            };
            reactor
                .poll
                .registry()
                .register(&mut stream, token, interest)
                .expect("a fresh socket registers");
        }
        Conn {
            core: core.clone(),
            stream,
            token,
            buffer: Vec::new(),
        }
    }

    fn take_line(&mut self) -> Option<String> {
        let end = self.buffer.iter().position(|&b| b == b'\n')?;
        let line: Vec<u8> = self.buffer.drain(..=end).collect();
        if self.core.has(Fault::DropsBufferedLines) {
            self.buffer.clear();
        }
        Some(format!("got {}", String::from_utf8_lossy(&line).trim_end()))
    }

    /// One line: `got <line>`, `eof` or `reset`.
    pub(super) async fn read_line(&mut self) -> String {
        let eof_first = self.core.has(Fault::EofBeforeData);
        poll_fn(|cx| {
            let mut chunk = [0u8; 512];
            loop {
                if !eof_first && let Some(line) = self.take_line() {
                    return Poll::Ready(line);
                }
                match self.stream.read(&mut chunk) {
                    Ok(0) => return Poll::Ready("eof".to_owned()),
                    Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        if let Some(line) = self.take_line() {
                            return Poll::Ready(line);
                        }
                        let mut reactor = self.core.reactor.borrow_mut();
                        let first = reactor.parked_once.insert(self.token);
                        if first || !self.core.has(Fault::NoReregister) {
                            reactor.readers.insert(self.token, cx.waker().clone());
                        }
                        return Poll::Pending;
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == ErrorKind::ConnectionReset => {
                        let what = if self.core.has(Fault::ResetIsEof) {
                            "eof"
                        } else {
                            "reset"
                        };
                        return Poll::Ready(what.to_owned());
                    }
                    Err(e) => return Poll::Ready(format!("error: {e}")),
                }
            }
        })
        .await
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        let mut reactor = self.core.reactor.borrow_mut();
        reactor.readers.remove(&self.token);
        let _ = reactor.poll.registry().deregister(&mut self.stream);
    }
}
