//! The selector's contract, on each backend: timeouts, tokens, and the one
//! difference between them, the trigger mode.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use select::event::{Event, Interest, Token};
use select::{Backend, Selector};

use crate::util::backends;

/// A connected pair of loopback sockets.
fn pair() -> io::Result<(TcpStream, TcpStream)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let a = TcpStream::connect(listener.local_addr()?)?;
    let (b, _) = listener.accept()?;
    a.set_nonblocking(true)?;
    Ok((a, b))
}

/// Waits once and returns the events.
fn wait(selector: &mut Selector, timeout: Duration) -> io::Result<Vec<Event>> {
    let mut events = Vec::new();
    selector.wait(&mut events, Some(timeout))?;
    Ok(events)
}

#[test]
fn an_idle_wait_lasts_its_timeout_and_reports_nothing() -> io::Result<()> {
    for backend in backends() {
        let (a, _b) = pair()?;
        let mut selector = Selector::new(backend)?;
        selector.add(a.as_fd(), Token(7), Interest::Read)?;
        let start = Instant::now();
        assert_eq!(
            wait(&mut selector, Duration::from_millis(30))?,
            vec![],
            "{backend}"
        );
        assert!(
            start.elapsed() >= Duration::from_millis(30),
            "{backend}: woke early"
        );
    }
    Ok(())
}

#[test]
fn a_readable_socket_is_reported_with_its_token() -> io::Result<()> {
    for backend in backends() {
        let (a, mut b) = pair()?;
        let mut selector = Selector::new(backend)?;
        selector.add(a.as_fd(), Token(7), Interest::Read)?;
        b.write_all(b"OK\n")?;
        let events = wait(&mut selector, Duration::from_secs(5))?;
        assert_eq!(events.len(), 1, "{backend}");
        assert_eq!(events[0].token, Token(7), "{backend}");
        assert!(events[0].readable, "{backend}");
        // Deleted: the same bytes are no longer news.
        selector.delete(a.as_fd())?;
        assert_eq!(wait(&mut selector, Duration::ZERO)?, vec![], "{backend}");
    }
    Ok(())
}

#[test]
fn level_triggered_backends_repeat_and_edge_triggered_epoll_does_not() -> io::Result<()> {
    for backend in backends() {
        let (mut a, mut b) = pair()?;
        let mut selector = Selector::new(backend)?;
        selector.add(a.as_fd(), Token(1), Interest::Read)?;
        b.write_all(b"200 0000000000000001\n")?;
        assert_eq!(
            wait(&mut selector, Duration::from_secs(5))?.len(),
            1,
            "{backend}"
        );
        // Read only part of what arrived, as a careless reader would.
        let mut two = [0u8; 2];
        a.read_exact(&mut two)?;
        let again = wait(&mut selector, Duration::from_millis(20))?;
        match backend {
            // Level-triggered: still readable, so reported again.
            Backend::Select | Backend::Poll => assert_eq!(again.len(), 1, "{backend}"),
            // Edge-triggered: nothing *new* arrived, so nothing to report;
            // the rest of the line would wait until more bytes come.
            Backend::Epoll => assert_eq!(again, vec![], "{backend}"),
        }
    }
    Ok(())
}

#[test]
fn write_interest_reports_room_in_the_send_buffer() -> io::Result<()> {
    for backend in backends() {
        let (a, _b) = pair()?;
        let mut selector = Selector::new(backend)?;
        selector.add(a.as_fd(), Token(3), Interest::Write)?;
        let events = wait(&mut selector, Duration::from_secs(5))?;
        assert!(
            events.len() == 1 && events[0].writable,
            "{backend}: {events:?}"
        );
        // Back to reading only: an idle socket is not news any more.
        selector.modify(a.as_fd(), Token(3), Interest::Read)?;
        assert_eq!(wait(&mut selector, Duration::ZERO)?, vec![], "{backend}");
    }
    Ok(())
}
