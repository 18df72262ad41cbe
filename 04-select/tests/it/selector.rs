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
        selector.add(a.as_fd(), Token::new(7), Interest::Read)?;
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
        selector.add(a.as_fd(), Token::new(7), Interest::Read)?;
        b.write_all(b"OK\n")?;
        let events = wait(&mut selector, Duration::from_secs(5))?;
        assert_eq!(events.len(), 1, "{backend}");
        assert_eq!(events[0].token, Token::new(7), "{backend}");
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
        selector.add(a.as_fd(), Token::new(1), Interest::Read)?;
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
        selector.add(a.as_fd(), Token::new(3), Interest::Write)?;
        let events = wait(&mut selector, Duration::from_secs(5))?;
        assert!(
            events.len() == 1 && events[0].writable,
            "{backend}: {events:?}"
        );
        // Back to reading only: an idle socket is not news any more.
        selector.modify(a.as_fd(), Token::new(3), Interest::Read)?;
        assert_eq!(wait(&mut selector, Duration::ZERO)?, vec![], "{backend}");
    }
    Ok(())
}

/// Does nothing: its only effect is that a blocked system call returns
/// `EINTR` when SIGUSR1 arrives.
extern "C" fn ignore_signal(_: libc::c_int) {}

#[test]
fn a_signal_neither_ends_a_wait_early_nor_reaches_the_caller() -> io::Result<()> {
    // SAFETY: `sigaction` with a zeroed struct, an empty mask and a handler
    // that does nothing (so it is async-signal-safe). No `SA_RESTART`: the
    // kernel must interrupt the wait, which is the point of the test.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = ignore_signal as *const () as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(
            libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()),
            0
        );
    }
    const WAIT: Duration = Duration::from_millis(80);
    for backend in backends() {
        let (a, _b) = pair()?;
        let (thread_tx, thread_rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || -> io::Result<(Vec<Event>, Duration)> {
            let mut selector = Selector::new(backend)?;
            selector.add(a.as_fd(), Token::new(0), Interest::Read)?;
            // SAFETY: `pthread_self` has no preconditions.
            let _ = thread_tx.send(unsafe { libc::pthread_self() });
            let start = Instant::now();
            let events = wait(&mut selector, WAIT)?;
            Ok((events, start.elapsed()))
        });
        let thread = thread_rx.recv().expect("the waiter says who it is");
        // Several signals during the wait, not just one.
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(10));
            // SAFETY: `thread` is the waiter, which is still running: it
            // cannot finish before its 80 ms wait does.
            unsafe { libc::pthread_kill(thread, libc::SIGUSR1) };
        }
        let (events, waited) = waiter.join().expect("the waiter does not panic")?;
        assert_eq!(events, vec![], "{backend}");
        assert!(waited >= WAIT, "{backend}: woke after {waited:?}");
    }
    Ok(())
}
