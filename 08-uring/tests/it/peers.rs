//! Peers that do not send one line per read: a reply split into single
//! bytes, two replies in one segment, and a peer that never stops sending.
//! The lane reads into a buffer it lends the kernel and hands the bytes to
//! the one framer, so none of them needs a rule of its own; these tests
//! say so for real, over loopback, through the harness and `--server`.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::Duration;

use testbed::cli::Settings;
use testbed::harness::execute;
use testbed::protocol::{Phases, Request, ResultHash};
use testbed::report::Report;
use testbed::workload::items;
use uring::Uring;

use crate::util::{answer, bounded, peer, requests};

/// Runs the stage against the peer at `server`, within the deadline.
fn run(server: SocketAddr, items: usize, conns: usize, phases: Phases) -> Report {
    let settings = Settings {
        items,
        conns,
        phases,
        server: Some(server),
        read_timeout: Some(Duration::from_secs(5)),
        ..Settings::default()
    };
    bounded(move || execute(&Uring, &settings).expect("the run finishes").report)
}

/// Writes each byte of `text` on its own, a millisecond apart.
fn trickle(mut stream: &TcpStream, text: &str) -> io::Result<()> {
    for byte in text.as_bytes() {
        stream.write_all(std::slice::from_ref(byte))?;
        thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

#[test]
fn replies_arriving_one_byte_at_a_time_complete() {
    let server = peer(|_, stream| {
        for request in requests(&stream) {
            trickle(&stream, &answer(&request))?;
        }
        Ok(())
    });
    let report = run(server, 3, 1, Phases::Two);
    assert_eq!(
        (report.ok, report.lost, report.wrong),
        (3, 0, 0),
        "{report}"
    );
}

#[test]
fn two_replies_in_one_segment_are_both_used() {
    // `OK` and the final `200` in one write: the second line is in the
    // framer before `BODY` has even been sent, and no read will bring it.
    let server = peer(|_, mut stream| {
        let reader = stream.try_clone()?;
        let mut incoming = requests(&reader);
        let Some(Request::Head(id)) = incoming.next() else {
            return Ok(());
        };
        // The first item of seed 1's list (the default seed).
        let item = items(1, 1).remove(0);
        assert_eq!(id, item.id);
        let both = format!("OK\n200 {}\n", ResultHash::of(item.id, &item.payload));
        stream.write_all(both.as_bytes())?;
        // The client still sends its BODY, as the protocol says.
        assert!(matches!(incoming.next(), Some(Request::Body(..))));
        Ok(())
    });
    let report = run(server, 1, 1, Phases::Two);
    assert_eq!(
        (report.ok, report.lost, report.wrong),
        (1, 0, 0),
        "{report}"
    );
}

/// A flooding peer gives up after this many bytes: far more than the
/// loopback buffers hold, so a client that reads everything without
/// closing is caught, and a broken one cannot eat the machine.
const FLOOD_CAP: usize = 32 << 20;

/// Answers the first request with `flood` repeated until the client closes
/// (a write fails) or [`FLOOD_CAP`] bytes went out (an error: the client
/// took them all).
fn flood(mut stream: &TcpStream, first: &str, flood: &[u8]) -> io::Result<()> {
    let batch = flood.repeat((16 << 10) / flood.len().max(1));
    stream.write_all(first.as_bytes())?;
    let mut sent = 0;
    while sent < FLOOD_CAP {
        match stream.write(&batch) {
            Ok(n) => sent += n,
            Err(_) => return Ok(()), // The client closed: as it should.
        }
    }
    Err(io::Error::other("the client read the whole flood"))
}

#[test]
fn a_flooding_peer_fails_its_item_alone_and_every_other_item_finishes() {
    for (name, first, again) in [
        ("lines", "OK\n", b"OK\n".as_slice()),
        ("one endless line", "200 ", b"x".as_slice()),
    ] {
        // The first connection floods; the ones the lane opens after it,
        // and the other lane's, answer as a server should.
        let server = peer(move |index, stream| {
            if index == 0 {
                return flood(&stream, first, again);
            }
            for request in requests(&stream) {
                (&stream).write_all(answer(&request).as_bytes())?;
            }
            Ok(())
        });
        let report = run(server, 20, 2, Phases::Two);
        assert_eq!((report.lost, report.wrong), (0, 0), "{name}: {report}");
        assert_eq!(report.errors.get("protocol"), Some(&1), "{name}: {report}");
        assert_eq!(report.ok, 19, "{name}: {report}");
    }
}

#[test]
fn a_flood_caught_while_a_send_is_in_flight_cancels_the_send() {
    // Two `OK`s in one segment, then more: the first `OK` queues `BODY`'s
    // send, and the second, read in the same completion, fails the item
    // while that send is the kernel's. The lane asks for it back
    // (ASYNC_CANCEL) and closes the socket only at its completion.
    let server = peer(|index, stream| match index {
        0 => flood(&stream, "OK\nOK\n", b"OK\n"),
        _ => Ok(()),
    });
    let report = run(server, 1, 1, Phases::Two);
    assert_eq!(report.errors.get("protocol"), Some(&1), "{report}");
    let cancels = report.stage_stats["cancels"].to_string();
    assert!(cancels.contains(" 1 cancel requests"), "{cancels}");
}
