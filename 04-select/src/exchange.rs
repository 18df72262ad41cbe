//! One item's conversation with the server, as a state machine that never
//! touches a socket.
//!
//! Stage 1's `sync::request` is a straight line: send `HEAD`, *wait* for
//! `OK`, send `BODY`, *wait* for `200`. An event loop cannot wait in the
//! middle of a function, so the same conversation is cut at its waits:
//! [`Exchange::start`] gives the first line to send, and each reply fed to
//! [`Exchange::on_reply`] gives either the next line ([`Step::Send`]) or the
//! item's outcome ([`Step::Done`]). The source article does the same with a
//! closure that returns the next closure (`$slot->[1] = $slot->[1]->()`);
//! in Rust an enum of the places where the conversation can stop says the
//! same thing and can be printed, compared and tested.
//!
//! Not here: bytes and sockets ([`crate::connection`]), which item goes
//! where ([`crate::pool`]).

use testbed::outcome::{self, Outcome};
use testbed::protocol::{Phases, Reply, Request};
use testbed::workload::Item;

// ANCHOR: exchange
/// Where an item's conversation stands: which reply it waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    item: Item,
    waiting_for: Awaiting,
}

/// The reply an [`Exchange`] waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaiting {
    /// `OK` or `NAK`, after `HEAD`.
    Ack,
    /// `200` or `500`, after `GET` or `BODY`.
    Result,
}

/// What to do after a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Send this line and keep waiting.
    Send(Request),
    /// The item is finished.
    Done(Outcome),
}

impl Exchange {
    /// Begins `item`'s conversation: the exchange, and the first line to send
    /// (`HEAD` for two phases, `GET` for one).
    pub fn start(item: Item, phases: Phases) -> (Exchange, Request) {
        let (waiting_for, first) = match phases {
            Phases::Two => (Awaiting::Ack, Request::Head(item.id)),
            Phases::One => (
                Awaiting::Result,
                Request::Get(item.id, item.payload.clone()),
            ),
        };
        (Exchange { item, waiting_for }, first)
    }

    /// Moves the conversation on by one reply. What the reply means is the
    /// testbed's to say ([`outcome::ack`], [`outcome::answer`]), the same
    /// for every stage; what happens next is this machine's.
    pub fn on_reply(&mut self, reply: Reply) -> Step {
        match self.waiting_for {
            Awaiting::Ack => match outcome::ack(reply) {
                Ok(()) => {
                    self.waiting_for = Awaiting::Result;
                    Step::Send(Request::Body(self.item.id, self.item.payload.clone()))
                }
                Err(failure) => Step::Done(Err(failure)),
            },
            Awaiting::Result => Step::Done(outcome::answer(reply)),
        }
    }
    // ANCHOR_END: exchange

    /// The item being sent.
    pub fn item(&self) -> &Item {
        &self.item
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::outcome::ErrorKind;
    use testbed::workload::items;

    #[test]
    fn two_phases_go_head_ok_body_result() {
        let item = items(1, 1).remove(0);
        let (mut exchange, first) = Exchange::start(item.clone(), Phases::Two);
        assert_eq!(first, Request::Head(item.id));
        assert_eq!(
            exchange.on_reply(Reply::Ok),
            Step::Send(Request::Body(item.id, item.payload.clone()))
        );
        let hash = item.expected_result();
        assert_eq!(
            exchange.on_reply(Reply::Success(hash)),
            Step::Done(Ok(hash))
        );
    }

    #[test]
    fn replies_out_of_turn_end_the_item() {
        let item = items(1, 1).remove(0);
        let kind = |phases, reply| {
            let (mut exchange, _) = Exchange::start(item.clone(), phases);
            match exchange.on_reply(reply) {
                Step::Done(Err(failure)) => Some(failure.kind),
                _ => None,
            }
        };
        assert_eq!(
            kind(Phases::Two, Reply::Nak("no".into())),
            Some(ErrorKind::Nak)
        );
        assert_eq!(
            kind(Phases::One, Reply::Failure("ko".into())),
            Some(ErrorKind::Ko)
        );
        assert_eq!(kind(Phases::One, Reply::Ok), Some(ErrorKind::Protocol));
        assert_eq!(
            kind(Phases::Two, Reply::Success(item.expected_result())),
            Some(ErrorKind::Protocol)
        );
        assert_eq!(
            kind(Phases::Two, Reply::Busy("busy".into())),
            Some(ErrorKind::Refused)
        );
    }
}
