//! The ring's failure paths that this kernel never takes by itself: it
//! keeps every overflowed completion, accepts every timeout and never
//! says `EBUSY`. Each is pretended through `Faults`, and each must fail
//! loudly, in one line, or recover with nothing lost.

use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};

use super::*;

/// A connected pair on loopback: the client end, and the peer's.
fn pair() -> io::Result<(TcpStream, TcpStream)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (peer, _) = listener.accept()?;
    Ok((client, peer))
}

/// A read whose bytes are already there, so it completes at once.
fn ready_read(ring: &mut Ring, owner: usize) -> io::Result<(OpId, TcpStream)> {
    let (client, mut peer) = pair()?;
    peer.write_all(b"OK\n")?;
    client.peek(&mut [0; 3])?;
    let id = ring.recv(owner, &SharedFd::new(client), vec![0; 16], None)?;
    Ok((id, peer))
}

fn one_line(error: &io::Error) -> String {
    let text = error.to_string();
    assert!(!text.contains('\n'), "one line, not: {text}");
    text
}

#[test]
fn an_ebusy_with_completions_waiting_hands_them_over_and_goes_on() -> io::Result<()> {
    let mut ring = Ring::new(8)?;
    let (read, _peer) = ready_read(&mut ring, 0)?;
    ring.submit()?;
    while ring.ring.completion().is_empty() {
        std::thread::yield_now();
    }
    ring.faults.busy = 1;
    ring.submit_and_wait()
        .expect("EBUSY with completions to reap is not an error");
    let mut done = Vec::new();
    ring.reap(&mut done);
    assert_eq!(done.len(), 1, "the waiting completion is reaped");
    assert_eq!(done[0].id, read);
    Ok(())
}

#[test]
fn an_ebusy_that_never_clears_fails_in_one_line() -> io::Result<()> {
    let mut ring = Ring::new(8)?;
    let (client, _peer) = pair()?;
    ring.recv(0, &SharedFd::new(client), vec![0; 16], None)?;
    ring.faults.busy = u32::MAX;
    let error = ring
        .submit_and_wait()
        .expect_err("EBUSY with nothing to reap, again and again");
    let text = one_line(&error);
    assert!(text.contains("EBUSY 3 times"), "{text}");
    ring.faults.busy = 0;
    Ok(())
}

#[test]
fn dropped_completions_fail_the_next_wait_naming_the_count() -> io::Result<()> {
    let mut ring = Ring::new(8)?;
    ring.faults.dropped = 7;
    let error = ring
        .submit_and_wait()
        .expect_err("completions the kernel dropped can never be answered");
    let text = one_line(&error);
    assert!(text.contains("dropped 7 completions"), "{text}");
    ring.submit_and_wait()
        .expect("the same loss is reported once");
    Ok(())
}

#[test]
fn a_refused_linked_timeout_is_not_a_timeout() -> io::Result<()> {
    let mut ring = Ring::new(8)?;
    ring.faults.refuse_timeouts = true;
    let (client, _peer) = pair()?;
    let read = ring.recv(
        0,
        &SharedFd::new(client),
        vec![0; 16],
        Some(Duration::from_secs(5)),
    )?;
    let mut done = Vec::new();
    while ring.in_flight() > 0 {
        ring.submit_and_wait()?;
        ring.reap(&mut done);
    }
    assert_eq!(
        done.len(),
        1,
        "the read comes back, its timeout stays inside"
    );
    assert_eq!(done[0].id, read);
    assert!(!done[0].timed_out, "no time limit ever ran");
    assert!(done[0].timeout_refused(), "{:?}", done[0].result);
    let error = done[0].result.as_ref().expect_err("the read never ran");
    let text = error.to_string();
    assert!(text.contains("refused a linked timeout"), "{text}");
    assert_eq!(ring.stats().timeouts_fired, 0);
    Ok(())
}

#[test]
fn a_fired_linked_timeout_says_timed_out() -> io::Result<()> {
    let mut ring = Ring::new(8)?;
    let (client, _peer) = pair()?;
    ring.recv(
        0,
        &SharedFd::new(client),
        vec![0; 16],
        Some(Duration::from_millis(5)),
    )?;
    let mut done = Vec::new();
    while ring.in_flight() > 0 {
        ring.submit_and_wait()?;
        ring.reap(&mut done);
    }
    assert!(done[0].timed_out && done[0].cancelled(), "{:?}", done[0]);
    assert!(!done[0].timeout_refused());
    Ok(())
}

#[test]
fn a_cancel_that_cannot_be_queued_leaves_nothing_behind() -> io::Result<()> {
    let mut ring = Ring::new(8)?;
    let (client, _peer) = pair()?;
    let fd = SharedFd::new(client);
    let mut reads = Vec::new();
    // Fill the submission queue, so the cancel must submit to find room...
    for _ in 0..8 {
        reads.push(ring.recv(0, &fd, vec![0; 16], None)?);
    }
    // ... and make that submit fail.
    ring.faults.busy = 1;
    let live = ring.in_flight();
    ring.cancel(reads[0]).expect_err("no room for the cancel");
    assert_eq!(
        ring.in_flight(),
        live,
        "the cancel that never went in is not counted"
    );
    assert_eq!(ring.stats().cancels, 0, "nor counted as sent");
    Ok(())
}

#[test]
fn a_small_completion_queue_overflows_and_loses_nothing() -> io::Result<()> {
    let mut ring = RingOptions::new(8).completions(8).build()?;
    let mut peers = Vec::new();
    let mut ids = Vec::new();
    for owner in 0..40 {
        let (id, peer) = ready_read(&mut ring, owner)?;
        ids.push(id);
        peers.push(peer);
    }
    let mut done = Vec::new();
    while ring.in_flight() > 0 {
        ring.submit_and_wait()?;
        ring.reap(&mut done);
    }
    assert_eq!(done.len(), 40, "every read's completion, none dropped");
    assert!(
        ring.stats().overflows > 0,
        "40 completions in a queue of 8 overflow"
    );
    let mut got: Vec<OpId> = done.iter().map(|c| c.id).collect();
    got.sort_by_key(|id| id.0);
    ids.sort_by_key(|id| id.0);
    assert_eq!(got, ids);
    Ok(())
}

#[test]
fn a_wait_with_nothing_in_flight_returns_at_once() -> io::Result<()> {
    // On a ring that held nothing, a wait for one completion would sleep
    // for ever: this must not wait at all.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let waited = Ring::new(8).and_then(|mut ring| {
            ring.submit_and_wait()?;
            Ok(ring.stats().enters)
        });
        let _ = tx.send(waited);
    });
    let enters = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("submit_and_wait with nothing in flight never returned")?;
    assert_eq!(enters, 1, "one enter, to submit, and no wait");
    Ok(())
}
