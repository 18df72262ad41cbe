//! What happened to one item: a result, or a failure of a named kind.
//!
//! The error kinds are a contract shared by every stage, the results
//! database and the report (`errors` in the JSON is keyed by
//! [`ErrorKind::as_str`]). Two stages that fail the same item the same way
//! must say so with the same word, or the race could not compare them.
//!
//! So the meaning of a reply lives here too, once: [`ack`] says what the
//! reply to a `HEAD` means, [`answer`] what the reply to a `GET` or a
//! `BODY` means, and [`unexpected`] names a reply that answers neither.
//! Stage 1 calls them in a straight line, stage 3 from its continuations,
//! stage 4 from its state machine; none of them classifies a reply itself.
//!
//! Not here: reading the reply ([`crate::conn`], [`crate::framing`]) or
//! parsing it ([`crate::protocol`]).

use std::fmt;
use std::io;
use std::str::FromStr;

use serde::Serialize;

use crate::framing::LineError;
use crate::protocol::{Reply, ResultHash};

/// The outcome of one item.
pub type Outcome = Result<ResultHash, Failure>;

/// Why an item failed, in the words of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The server answered `NAK` to the `HEAD`.
    Nak,
    /// The server answered `500` ("KO").
    Ko,
    /// No reply within the read timeout (the server's `hang` fault, or a
    /// reply slower than the client is willing to wait).
    Timeout,
    /// The client gave up waiting for a connection of its own (a pool's
    /// checkout timeout): distinct from [`Timeout`](Self::Timeout), which
    /// is the server being slow. The request was never sent.
    PoolTimeout,
    /// The connection was refused (`503`, or nothing listening).
    Refused,
    /// The connection closed or broke before the reply (the `drop` fault).
    Closed,
    /// The reply broke the protocol (the `garbage` fault).
    Protocol,
}

impl ErrorKind {
    /// Every kind, in report order.
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::Nak,
        ErrorKind::Ko,
        ErrorKind::Timeout,
        ErrorKind::PoolTimeout,
        ErrorKind::Refused,
        ErrorKind::Closed,
        ErrorKind::Protocol,
    ];

    /// The word used in the database and the report.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Nak => "nak",
            ErrorKind::Ko => "ko",
            ErrorKind::Timeout => "timeout",
            ErrorKind::PoolTimeout => "pool_timeout",
            ErrorKind::Refused => "refused",
            ErrorKind::Closed => "closed",
            ErrorKind::Protocol => "protocol",
        }
    }

    /// True when an item that failed this way cost the server no service
    /// time: a connect that was refused (or answered `503 busy`), a
    /// checkout that gave up before sending anything. The report leaves
    /// such items out of its efficiency, which compares the server's work
    /// with what Little's law allows.
    pub fn costs_no_service(self) -> bool {
        matches!(self, ErrorKind::Refused | ErrorKind::PoolTimeout)
    }

    /// True when the connection cannot carry another request after this
    /// failure. `NAK` and `500` are answers: the conversation is still in
    /// step. After a timeout a late reply may still arrive, after garbage the
    /// framing is lost, after a close there is nothing left: reconnect.
    pub fn breaks_connection(self) -> bool {
        !matches!(
            self,
            ErrorKind::Nak | ErrorKind::Ko | ErrorKind::PoolTimeout
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ErrorKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        ErrorKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| format!("unknown error kind '{s}'"))
    }
}

/// A failed item: the kind, for counting, and a detail, for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What class of failure.
    pub kind: ErrorKind,
    /// What exactly happened (the server's reason, the OS error...).
    pub detail: String,
}

impl Failure {
    /// A failure of `kind` with a detail.
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Failure {
        Failure {
            kind,
            detail: detail.into(),
        }
    }

    /// Classifies an I/O error on a client socket.
    pub fn from_io(error: &io::Error) -> Failure {
        use io::ErrorKind as Io;
        let kind = match error.kind() {
            // A blocking socket with a read timeout reports it as WouldBlock
            // on Linux and TimedOut elsewhere.
            Io::WouldBlock | Io::TimedOut => ErrorKind::Timeout,
            Io::ConnectionRefused => ErrorKind::Refused,
            _ => ErrorKind::Closed,
        };
        Failure::new(kind, error.to_string())
    }
}

impl From<LineError> for Failure {
    fn from(error: LineError) -> Failure {
        match error {
            LineError::Io(e) => Failure::from_io(&e),
            LineError::Frame(e) => Failure::new(ErrorKind::Protocol, e.to_string()),
            LineError::EofMidLine => Failure::new(ErrorKind::Closed, error.to_string()),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.detail)
    }
}

impl std::error::Error for Failure {}

// ANCHOR: replies
/// What the reply to a `HEAD` means: `OK` lets the request go on (send the
/// `BODY`), `NAK` ends it (an answer: the connection stays usable),
/// anything else is [`unexpected`].
pub fn ack(reply: Reply) -> Result<(), Failure> {
    match reply {
        Reply::Ok => Ok(()),
        Reply::Nak(reason) => Err(Failure::new(ErrorKind::Nak, reason)),
        other => Err(unexpected(other)),
    }
}

/// What the reply to a `GET` or a `BODY` means: `200` is the item's result,
/// `500` the server's failure ("KO", an answer too), anything else is
/// [`unexpected`].
pub fn answer(reply: Reply) -> Outcome {
    match reply {
        Reply::Success(result) => Ok(result),
        Reply::Failure(reason) => Err(Failure::new(ErrorKind::Ko, reason)),
        other => Err(unexpected(other)),
    }
}
// ANCHOR_END: replies

/// A reply that does not answer the request sent: `503 busy` is a refusal
/// (the server turned the connection away, whatever was asked), anything
/// else a protocol error.
pub fn unexpected(reply: Reply) -> Failure {
    match reply {
        Reply::Busy(reason) => Failure::new(ErrorKind::Refused, reason),
        other => Failure::new(ErrorKind::Protocol, format!("unexpected reply '{other}'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in ErrorKind::ALL {
            assert_eq!(kind.as_str().parse(), Ok(kind));
            let json = serde_json::to_string(&kind).expect("a kind serialises");
            assert_eq!(json, format!("\"{kind}\""));
        }
    }

    #[test]
    fn replies_mean_the_same_to_every_stage() {
        let hash = ResultHash(0xff);
        fn kind<T>(outcome: Result<T, Failure>) -> Option<ErrorKind> {
            outcome.err().map(|f| f.kind)
        }
        assert_eq!(ack(Reply::Ok), Ok(()));
        assert_eq!(kind(ack(Reply::Nak("no".into()))), Some(ErrorKind::Nak));
        assert_eq!(kind(ack(Reply::Success(hash))), Some(ErrorKind::Protocol));
        assert_eq!(
            kind(ack(Reply::Busy("busy".into()))),
            Some(ErrorKind::Refused)
        );
        assert_eq!(answer(Reply::Success(hash)), Ok(hash));
        assert_eq!(
            kind(answer(Reply::Failure("ko".into()))),
            Some(ErrorKind::Ko)
        );
        assert_eq!(kind(answer(Reply::Ok)), Some(ErrorKind::Protocol));
        assert_eq!(
            kind(answer(Reply::Busy("busy".into()))),
            Some(ErrorKind::Refused)
        );
        let bad = answer(Reply::BadRequest("late".into())).expect_err("out of protocol");
        assert_eq!(bad.detail, "unexpected reply '400 late'");
    }

    #[test]
    fn io_errors_are_classified() {
        let kind = |k| Failure::from_io(&io::Error::from(k)).kind;
        assert_eq!(kind(io::ErrorKind::WouldBlock), ErrorKind::Timeout);
        assert_eq!(kind(io::ErrorKind::ConnectionRefused), ErrorKind::Refused);
        assert_eq!(kind(io::ErrorKind::ConnectionReset), ErrorKind::Closed);
    }
}
