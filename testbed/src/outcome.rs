//! What happened to one item: a result, or a failure of a named kind.
//!
//! The error kinds are a contract shared by every stage, the results
//! database and the report (`errors` in the JSON is keyed by
//! [`ErrorKind::as_str`]). Two stages that fail the same item the same way
//! must say so with the same word, or the race could not compare them.

use std::fmt;
use std::io;
use std::str::FromStr;

use serde::Serialize;

use crate::framing::LineError;
use crate::protocol::ResultHash;

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
    fn io_errors_are_classified() {
        let kind = |k| Failure::from_io(&io::Error::from(k)).kind;
        assert_eq!(kind(io::ErrorKind::WouldBlock), ErrorKind::Timeout);
        assert_eq!(kind(io::ErrorKind::ConnectionRefused), ErrorKind::Refused);
        assert_eq!(kind(io::ErrorKind::ConnectionReset), ErrorKind::Closed);
    }
}
