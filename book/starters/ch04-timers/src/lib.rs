//! Chapter 4, exercise 2: an event loop with timers.
//!
//! The Portuguese article's loop, whole: compute the next timeout from the
//! earliest timer (`proximo_timeout()`), wait on every socket with it, read
//! what is readable, fire the timers that are due (`trata_timeouts()`), and
//! stop when there is nothing left to wait for: no socket and no timer.
//!
//! [`EventLoop`] watches sockets that send lines and holds named timers. The
//! reading and the timer bookkeeping are written; write [`EventLoop::run`].
//! Use `select::pool::next_timeout` for the timeout.
//!
//! A peer that sent one line and hung up, and a timer 20 ms away; the loop
//! returns once both are done with:
//!
//! ```
//! use std::io::Write;
//! use std::net::{TcpListener, TcpStream};
//! use std::time::{Duration, Instant};
//! use ch04_timers::{EventLoop, Happened};
//! use select::{Backend, event::Token};
//!
//! let listener = TcpListener::bind("127.0.0.1:0")?;
//! let client = TcpStream::connect(listener.local_addr()?)?;
//! listener.accept()?.0.write_all(b"hello\n")?; // and closes: the stream drops
//! let mut event_loop = EventLoop::new(Backend::Epoll)?;
//! event_loop.watch(Token::new(7), client)?;
//! event_loop.at(Instant::now() + Duration::from_millis(20), "late");
//! let mut seen = Vec::new();
//! event_loop.run(|happened| seen.push(happened))?;
//! let line = Happened::Line(Token::new(7), "hello".into());
//! assert_eq!(seen, [line, Happened::Closed(Token::new(7)), Happened::Timer("late")], "the line, the close, then the timer");
//! # Ok::<(), std::io::Error>(())
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch04-timers");

use std::collections::BTreeMap;
use std::io;
use std::net::TcpStream;
use std::time::Instant;

use select::event::{Interest, Token};
use select::pool::next_timeout;
use select::{Backend, Selector};
use testbed::framing::LineFramer;

/// What the loop reports to its handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happened {
    /// The timer with this name is due.
    Timer(&'static str),
    /// A line arrived on the socket with this token.
    Line(Token, String),
    /// The socket with this token was closed by its peer (and is no longer
    /// watched).
    Closed(Token),
}

/// A loop over sockets and timers.
pub struct EventLoop {
    selector: Selector,
    sockets: BTreeMap<Token, (TcpStream, LineFramer)>,
    /// Pending timers: when, and their name.
    timers: Vec<(Instant, &'static str)>,
}

impl EventLoop {
    /// An empty loop on `backend`.
    pub fn new(backend: Backend) -> io::Result<EventLoop> {
        Ok(EventLoop {
            selector: Selector::new(backend)?,
            sockets: BTreeMap::new(),
            timers: Vec::new(),
        })
    }

    /// Watches `stream` for lines; its events and lines carry `token`.
    pub fn watch(&mut self, token: Token, stream: TcpStream) -> io::Result<()> {
        stream.set_nonblocking(true)?;
        self.selector
            .add(std::os::fd::AsFd::as_fd(&stream), token, Interest::Read)?;
        self.sockets.insert(token, (stream, LineFramer::new()));
        Ok(())
    }

    /// Adds a timer named `name`, due at `at`.
    pub fn at(&mut self, at: Instant, name: &'static str) {
        self.timers.push((at, name));
    }

    /// Nothing to wait for: no socket and no timer.
    pub fn is_idle(&self) -> bool {
        self.sockets.is_empty() && self.timers.is_empty()
    }

    /// Reads what `token`'s socket has, reports each complete line, and
    /// reports and forgets the socket if its peer closed.
    fn read_socket(&mut self, token: Token, handle: &mut impl FnMut(Happened)) -> io::Result<()> {
        let Some((stream, framer)) = self.sockets.get_mut(&token) else {
            return Ok(());
        };
        let mut eof = false;
        loop {
            match framer.read_from(stream) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        while let Some(line) = framer
            .next_line()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
        {
            handle(Happened::Line(token, line));
        }
        if eof {
            if let Some((stream, _)) = self.sockets.remove(&token) {
                self.selector.delete(std::os::fd::AsFd::as_fd(&stream))?;
            }
            handle(Happened::Closed(token));
        }
        Ok(())
    }

    /// Reports and removes every timer due at `now`, earliest first.
    fn fire_due_timers(&mut self, now: Instant, handle: &mut impl FnMut(Happened)) {
        self.timers.sort_by_key(|&(at, _)| at);
        let due = self.timers.partition_point(|&(at, _)| at <= now);
        for (_, name) in self.timers.drain(..due) {
            handle(Happened::Timer(name));
        }
    }

    // ANCHOR: exercise
    /// Runs until nothing is left: each turn waits until the earliest timer
    /// or a socket event, reads the sockets that have events, then fires
    /// the timers that are due.
    pub fn run(&mut self, mut handle: impl FnMut(Happened)) -> io::Result<()> {
        // TODO: how long may each wait last, and what must happen after it returns, before the next one?
        todo!("how long may each wait last, and what must happen after it returns, before the next one?")
    }
    // ANCHOR_END: exercise
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::TcpListener;
    use std::sync::mpsc;
    use std::time::Duration;
    use testbed::hints::Outcome;

    use testbed::testing::WaitCost;

    const MS: Duration = Duration::from_millis(1);

    /// Runs the loop on a thread so a hung loop fails the test instead of
    /// hanging it; returns what happened, with when.
    fn run_bounded(event_loop: EventLoop) -> Vec<(Happened, Instant)> {
        run_bounded_with(event_loop, |_| {}).0
    }

    /// The same, calling `also` on each happening as it is handled; also
    /// returns what the run cost its thread.
    fn run_bounded_with(
        mut event_loop: EventLoop,
        mut also: impl FnMut(&Happened) + Send + 'static,
    ) -> (Vec<(Happened, Instant)>, WaitCost) {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut log = Vec::new();
            let (result, cost) = WaitCost::of(|| {
                event_loop.run(|h| {
                    also(&h);
                    log.push((h, Instant::now()));
                })
            });
            let _ = tx.send(result.map(|()| (log, cost)));
        });
        rx.recv_timeout(Duration::from_secs(2))
            .expect(
                "the loop never returned within 2 s, though its timers were due and its \
                 peers had closed: it should end once no socket and no timer is left",
            )
            .expect("the loop should not fail")
    }

    /// A peer that sends `line` and hangs up, watched as `token`.
    fn peer_says(event_loop: &mut EventLoop, token: Token, line: &str) -> io::Result<()> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let client = TcpStream::connect(listener.local_addr()?)?;
        listener.accept()?.0.write_all(line.as_bytes())?;
        event_loop.watch(token, client)
    }

    #[test]
    fn timers_fire_in_order_never_early_and_then_the_loop_ends() -> Outcome {
        for backend in Backend::ALL {
            let mut event_loop = EventLoop::new(backend)?;
            let start = Instant::now();
            event_loop.at(start + 30 * MS, "third");
            event_loop.at(start + 10 * MS, "first");
            event_loop.at(start + 20 * MS, "second");
            let log = run_bounded(event_loop);
            let names: Vec<_> = log.iter().map(|(h, _)| h.clone()).collect();
            assert_eq!(
                names,
                [
                    Happened::Timer("first"),
                    Happened::Timer("second"),
                    Happened::Timer("third")
                ],
                "{backend}: every timer should fire, earliest first"
            );
            for ((_, at), due) in log.iter().zip([10, 20, 30]) {
                assert!(
                    *at >= start + due * MS,
                    "{backend}: a timer fired before it was due"
                );
            }
        }
        Ok(())
    }

    #[test]
    fn a_line_is_handled_before_a_later_timer_and_a_close_ends_the_loop() -> Outcome {
        for backend in Backend::ALL {
            let listener = TcpListener::bind("127.0.0.1:0")?;
            let client = TcpStream::connect(listener.local_addr()?)?;
            let (mut peer, _) = listener.accept()?;
            let mut event_loop = EventLoop::new(backend)?;
            event_loop.watch(Token::new(1), client)?;
            event_loop.at(Instant::now() + 200 * MS, "late");
            std::thread::spawn(move || {
                std::thread::sleep(20 * MS);
                let _ = peer.write_all(b"OK\n200 0000000000000001\n");
                // Dropping `peer` closes the connection.
            });
            let log: Vec<_> = run_bounded(event_loop)
                .into_iter()
                .map(|(h, _)| h)
                .collect();
            assert_eq!(
                log,
                [
                    Happened::Line(Token::new(1), "OK".into()),
                    Happened::Line(Token::new(1), "200 0000000000000001".into()),
                    Happened::Closed(Token::new(1)),
                    Happened::Timer("late"),
                ],
                "{backend}: the lines and the close should be handled as they come, before the later timer"
            );
        }
        Ok(())
    }

    #[test]
    fn an_idle_loop_returns_at_once() -> Outcome {
        let log = run_bounded(EventLoop::new(Backend::Poll)?);
        assert!(log.is_empty(), "an idle loop has nothing to report");
        Ok(())
    }

    #[test]
    fn sockets_keep_the_loop_running_after_the_last_timer() -> Outcome {
        for backend in Backend::ALL {
            let listener = TcpListener::bind("127.0.0.1:0")?;
            let client = TcpStream::connect(listener.local_addr()?)?;
            let (mut peer, _) = listener.accept()?;
            let mut event_loop = EventLoop::new(backend)?;
            event_loop.watch(Token::new(1), client)?;
            event_loop.at(Instant::now() + MS, "soon");
            // The peer speaks only once the timer is long gone.
            let (spoken, speak) = mpsc::channel::<()>();
            std::thread::spawn(move || {
                if speak.recv_timeout(Duration::from_secs(10)).is_ok() {
                    let _ = peer.write_all(b"OK\n");
                }
            });
            let log: Vec<_> = run_bounded_with(event_loop, move |h| {
                if h == &Happened::Timer("soon") {
                    let _ = spoken.send(());
                }
            })
            .0
            .into_iter()
            .map(|(h, _)| h)
            .collect();
            assert_eq!(
                log,
                [
                    Happened::Timer("soon"),
                    Happened::Line(Token::new(1), "OK".into()),
                    Happened::Closed(Token::new(1)),
                ],
                "{backend}: the loop should run while a socket is watched, with no timer left"
            );
        }
        Ok(())
    }

    #[test]
    fn an_early_timer_is_not_kept_waiting_by_a_later_one() -> Outcome {
        // Added first or added last, due last: the wait must be for the
        // earliest timer, whichever was added when.
        for late_first in [true, false] {
            let mut event_loop = EventLoop::new(Backend::Epoll)?;
            let start = Instant::now();
            if late_first {
                event_loop.at(start + 600 * MS, "late");
            }
            event_loop.at(start + MS, "soon");
            if !late_first {
                event_loop.at(start + 600 * MS, "late");
            }
            let log = run_bounded(event_loop);
            let soon = log
                .iter()
                .find(|(h, _)| h == &Happened::Timer("soon"))
                .map(|&(_, at)| at - start);
            let order = if late_first {
                "added after"
            } else {
                "added before"
            };
            assert!(
                soon.is_some_and(|after| after < 300 * MS),
                "a timer due after 1 ms, {order} one due after 600 ms, should fire long before it, not after {soon:?}"
            );
        }
        Ok(())
    }

    #[test]
    fn a_loop_waiting_for_a_timer_sleeps() -> Outcome {
        for backend in Backend::ALL {
            let mut event_loop = EventLoop::new(backend)?;
            event_loop.at(Instant::now() + 200 * MS, "in 200 ms");
            let (log, cost) = run_bounded_with(event_loop, |_| {});
            assert_eq!(log.len(), 1, "{backend}: the one timer should fire");
            assert!(
                cost.is_quiet(),
                "{backend}: {}",
                cost.describe("a loop with one timer 200 ms away")
            );
        }
        Ok(())
    }

    #[test]
    fn two_sockets_ready_in_the_same_wait_are_both_read() -> Outcome {
        for backend in Backend::ALL {
            let mut event_loop = EventLoop::new(backend)?;
            // Both peers have written and hung up before the loop's first
            // wait, so that one wait reports both sockets.
            peer_says(&mut event_loop, Token::new(1), "one\n")?;
            peer_says(&mut event_loop, Token::new(2), "two\n")?;
            let mut log: Vec<_> = run_bounded(event_loop)
                .into_iter()
                .map(|(h, _)| h)
                .collect();
            log.sort_by_key(|h| format!("{h:?}"));
            assert_eq!(
                log,
                [
                    Happened::Closed(Token::new(1)),
                    Happened::Closed(Token::new(2)),
                    Happened::Line(Token::new(1), "one".into()),
                    Happened::Line(Token::new(2), "two".into()),
                ],
                "{backend}: every socket a wait reports should be read, not only the first"
            );
        }
        Ok(())
    }

    #[test]
    fn a_line_and_a_due_timer_in_one_turn_are_both_handled() -> Outcome {
        for backend in Backend::ALL {
            let mut event_loop = EventLoop::new(backend)?;
            // The timer is already due and the line already waits when the
            // loop starts: one turn finds both.
            event_loop.at(Instant::now(), "due");
            peer_says(&mut event_loop, Token::new(1), "here\n")?;
            let log: Vec<_> = run_bounded(event_loop)
                .into_iter()
                .map(|(h, _)| h)
                .collect();
            assert_eq!(
                log,
                [
                    Happened::Line(Token::new(1), "here".into()),
                    Happened::Closed(Token::new(1)),
                    Happened::Timer("due"),
                ],
                "{backend}: a turn reads the sockets that have events, then fires the timers that are due"
            );
        }
        Ok(())
    }
}
