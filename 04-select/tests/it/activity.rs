//! A slot's clock of activity, [`Slot::last_active`]: it measures silence,
//! so it moves when bytes move and at no other event.
//!
//! Stage 5 starts its read timeout from this clock ("no byte for this
//! long"). Readiness is only a hint, so an event may move nothing: a
//! "writable" with nothing queued, a "readable" whose read says
//! `WouldBlock`. If such an event counted as activity, a peer (or a kernel)
//! that keeps waking the loop without sending anything would keep a silent
//! request alive for ever.

use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use select::Selector;
use select::connection::Connection;
use select::event::Event;
use select::slot::{Slot, SlotId};
use testbed::protocol::Phases;
use testbed::workload::items;

use crate::util::{DEADLINE, backends};

/// Long enough for `Instant::now()` to move measurably between two events.
const PAUSE: Duration = Duration::from_millis(5);

/// A slot on a connected loopback pair, and the peer's end.
fn slot_and_peer(selector: &mut Selector) -> io::Result<(Slot<()>, TcpStream)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let client = TcpStream::connect(listener.local_addr()?)?;
    let (peer, _) = listener.accept()?;
    let conn = Connection::from_connected(client)?;
    Ok((Slot::adopt(SlotId::new(0), conn, selector)?, peer))
}

/// An event for slot 0 that the kernel did not necessarily send.
fn hint(readable: bool, writable: bool) -> Event {
    Event {
        token: SlotId::new(0).token(),
        readable,
        writable,
        closed: false,
    }
}

#[test]
fn an_event_that_moves_no_bytes_is_not_activity() -> io::Result<()> {
    for backend in backends() {
        let mut selector = Selector::new(backend)?;
        let (mut slot, mut peer) = slot_and_peer(&mut selector)?;
        let item = items(1, 1).remove(0);
        let reply = format!("200 {}\n", item.expected_result());
        let turn = slot.start(item, Phases::One, (), &mut selector);
        assert!(turn.alive && turn.finished.is_none(), "{backend}");
        let sent = slot.last_active();

        // "Writable" with nothing queued, then "readable" with nothing to
        // read: both are hints that lead to no I/O.
        for (name, event) in [
            ("writable", hint(false, true)),
            ("readable", hint(true, false)),
        ] {
            thread::sleep(PAUSE);
            let turn = slot.on_event(&event, &mut selector);
            assert!(turn.alive && turn.finished.is_none(), "{backend}, {name}");
            assert_eq!(
                slot.last_active(),
                sent,
                "{backend}: a {name} event that moved no bytes counted as activity"
            );
        }

        // The reply does move bytes, and the clock with it.
        thread::sleep(PAUSE);
        peer.write_all(reply.as_bytes())?;
        let before_reply = Instant::now();
        let mut events = Vec::new();
        let deadline = Instant::now() + DEADLINE;
        let finished = loop {
            assert!(Instant::now() < deadline, "{backend}: no reply event");
            selector.wait(&mut events, Some(DEADLINE))?;
            let Some(event) = events.first() else {
                continue;
            };
            let turn = slot.on_event(event, &mut selector);
            assert!(turn.alive, "{backend}");
            if let Some((_, outcome)) = turn.finished {
                break outcome;
            }
        };
        assert!(finished.is_ok(), "{backend}: {finished:?}");
        assert!(
            slot.last_active() >= before_reply,
            "{backend}: the reply is activity"
        );
        slot.close(&mut selector)?;
    }
    Ok(())
}
