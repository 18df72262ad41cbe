//! SLOW/1, the wire protocol every stage speaks (its specification is the
//! book's protocol appendix, `book/src/appendix-protocol.md`).
//!
//! This module is only about *messages*: what a request or a reply line
//! means, how to parse one from a line and how to render one back. It does
//! not read or write sockets and does not split a byte stream into lines;
//! that is [`crate::framing`]'s job, and keeping the two apart is what lets
//! the same parser serve a blocking client, a non-blocking event loop and the
//! server alike.
//!
//! Parsing never panics: every malformed line becomes a [`ParseError`] that
//! says what was wrong, which the server sends back verbatim in its `400`.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A line, including its `\n`, is at most this many bytes (the protocol
/// appendix, "Framing"). Anything longer is a protocol error, never a reason to buffer.
pub const MAX_LINE: usize = 1024;

/// A payload is 1 to this many characters from `[A-Za-z0-9_.-]`.
pub const MAX_PAYLOAD: usize = 512;

/// The key of one item of work, as it travels on the wire (`<id>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemId(pub u64);

impl fmt::Display for ItemId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for ItemId {
    type Err = ParseError;

    /// Decimal digits only: `u64::from_str` alone would also take `+7`,
    /// which the protocol forbids.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseError::BadId(s.to_owned()));
        }
        // Leading zeros are accepted; the hash is taken over the canonical
        // decimal form (`007` hashes as `7`), so both ends always agree.
        s.parse()
            .map(ItemId)
            .map_err(|_| ParseError::BadId(s.to_owned()))
    }
}

/// The data sent with an item (`<payload>`): 1 to [`MAX_PAYLOAD`] characters
/// from `[A-Za-z0-9_.-]`. Holding one proves it is valid.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Payload(String);

impl Payload {
    /// Checks `s` against the payload rules.
    pub fn new(s: impl Into<String>) -> Result<Payload, ParseError> {
        let s = s.into();
        let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
        if s.is_empty() || s.len() > MAX_PAYLOAD || !s.bytes().all(allowed) {
            return Err(ParseError::BadPayload(abbreviate(&s)));
        }
        Ok(Payload(s))
    }

    /// The payload's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The answer to a successful request: FNV-1a 64 of `<id>:<payload>`,
/// written on the wire as 16 lowercase hex digits.
///
/// Because anyone can compute it, a client can check every answer it stores
/// and the report can tell a right row from a wrong one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResultHash(pub u64);

impl ResultHash {
    // ANCHOR: result_hash
    /// The result the server must answer for `id` and `payload`.
    pub fn of(id: ItemId, payload: &Payload) -> ResultHash {
        const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let text = format!("{id}:{payload}");
        let hash = text.bytes().fold(OFFSET_BASIS, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(PRIME)
        });
        ResultHash(hash)
    }
    // ANCHOR_END: result_hash
}

impl fmt::Display for ResultHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl FromStr for ResultHash {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, ParseError> {
        let lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        if s.len() != 16 || !s.bytes().all(lower_hex) {
            return Err(ParseError::BadResult(abbreviate(s)));
        }
        u64::from_str_radix(s, 16)
            .map(ResultHash)
            .map_err(|_| ParseError::BadResult(abbreviate(s)))
    }
}

/// Which step of a request a line belongs to. Faults and latencies are drawn
/// per `(seed, id, phase)`, so the phase is part of every decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// `GET`: the whole request in one step.
    Get,
    /// `HEAD`: the first step of a two-phase request.
    Head,
    /// `BODY`: the second step, after the server said `OK`.
    Body,
}

impl Phase {
    /// A small number for mixing into deterministic draws.
    pub fn index(self) -> u64 {
        match self {
            Phase::Get => 0,
            Phase::Head => 1,
            Phase::Body => 2,
        }
    }
}

/// The shape of a request: one `GET`, or `HEAD` then `BODY` (the `--phases`
/// flag). A two-phase request costs two round trips and two service times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Phases {
    /// `GET <id> <payload>`, answered by `200` or `500`.
    One,
    /// `HEAD <id>`, `OK` or `NAK`, then `BODY <id> <payload>`, `200` or `500`.
    #[default]
    Two,
}

impl Phases {
    /// How many request lines, and service times, one item costs.
    pub fn count(self) -> u32 {
        match self {
            Phases::One => 1,
            Phases::Two => 2,
        }
    }
}

/// A request line, client to server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `GET <id> <payload>`: single-phase request.
    Get(ItemId, Payload),
    /// `HEAD <id>`: phase 1 of a two-phase request.
    Head(ItemId),
    /// `BODY <id> <payload>`: phase 2, only right after `OK` to `HEAD <id>`.
    Body(ItemId, Payload),
    /// `QUIT`: the server closes the connection.
    Quit,
}

impl Request {
    /// Parses one line without its `\n` (and without a `\r`, which the
    /// framer strips).
    pub fn parse(line: &str) -> Result<Request, ParseError> {
        let mut fields = split_fields(line)?;
        let verb = fields.next().unwrap_or_default();
        let request = match verb {
            "GET" => Request::Get(id_field(&mut fields)?, payload_field(&mut fields)?),
            "HEAD" => Request::Head(id_field(&mut fields)?),
            "BODY" => Request::Body(id_field(&mut fields)?, payload_field(&mut fields)?),
            "QUIT" => Request::Quit,
            other => return Err(ParseError::UnknownVerb(abbreviate(other))),
        };
        match fields.next() {
            Some(extra) => Err(ParseError::TrailingField(abbreviate(extra))),
            None => Ok(request),
        }
    }

    /// The phase this request line starts, if it is a request for an item.
    pub fn phase(&self) -> Option<(ItemId, Phase)> {
        match self {
            Request::Get(id, _) => Some((*id, Phase::Get)),
            Request::Head(id) => Some((*id, Phase::Head)),
            Request::Body(id, _) => Some((*id, Phase::Body)),
            Request::Quit => None,
        }
    }
}

impl fmt::Display for Request {
    /// The line without its `\n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::Get(id, payload) => write!(f, "GET {id} {payload}"),
            Request::Head(id) => write!(f, "HEAD {id}"),
            Request::Body(id, payload) => write!(f, "BODY {id} {payload}"),
            Request::Quit => f.write_str("QUIT"),
        }
    }
}

/// A reply line, server to client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `OK`: answers `HEAD`, go on and send the body.
    Ok,
    /// `NAK <reason>`: answers `HEAD`, refused; the connection stays usable.
    Nak(String),
    /// `200 <result>`: answers `GET` or `BODY`, success.
    Success(ResultHash),
    /// `500 <reason>`: answers `GET` or `BODY`, failure ("KO"); the
    /// connection stays usable.
    Failure(String),
    /// `400 <reason>`: the request was malformed or out of sequence; the
    /// server closes the connection after sending it.
    BadRequest(String),
    /// `503 <reason>`: the server is at its connection limit and closes.
    Busy(String),
}

impl Reply {
    /// Parses one line without its `\n`.
    pub fn parse(line: &str) -> Result<Reply, ParseError> {
        if line == "OK" {
            return Ok(Reply::Ok);
        }
        let (code, rest) = line
            .split_once(' ')
            .ok_or_else(|| ParseError::UnknownReply(abbreviate(line)))?;
        let reason = || {
            if rest.is_empty() {
                Err(ParseError::MissingField("reason"))
            } else {
                Ok(rest.to_owned())
            }
        };
        match code {
            "NAK" => Ok(Reply::Nak(reason()?)),
            "200" => Ok(Reply::Success(rest.parse()?)),
            "500" => Ok(Reply::Failure(reason()?)),
            "400" => Ok(Reply::BadRequest(reason()?)),
            "503" => Ok(Reply::Busy(reason()?)),
            _ => Err(ParseError::UnknownReply(abbreviate(line))),
        }
    }
}

impl fmt::Display for Reply {
    /// The line without its `\n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Ok => f.write_str("OK"),
            Reply::Nak(reason) => write!(f, "NAK {reason}"),
            Reply::Success(result) => write!(f, "200 {result}"),
            Reply::Failure(reason) => write!(f, "500 {reason}"),
            Reply::BadRequest(reason) => write!(f, "400 {reason}"),
            Reply::Busy(reason) => write!(f, "503 {reason}"),
        }
    }
}

/// Why a line is not a valid SLOW/1 message. The `Display` text is what the
/// server puts after `400`, so it is short and printable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// The verb is not one of `GET`, `HEAD`, `BODY`, `QUIT`.
    #[error("unknown verb '{0}'")]
    UnknownVerb(String),
    /// The reply does not start with a known status.
    #[error("unknown reply '{0}'")]
    UnknownReply(String),
    /// A field the message needs is not there.
    #[error("missing {0}")]
    MissingField(&'static str),
    /// Fields must be separated by exactly one space.
    #[error("fields must be separated by exactly one space")]
    BadSpacing,
    /// More fields than the verb takes.
    #[error("unexpected field '{0}'")]
    TrailingField(String),
    /// The id is not a decimal unsigned 64-bit integer.
    #[error("bad id '{0}': expected a decimal unsigned 64-bit integer")]
    BadId(String),
    /// The payload breaks the payload rules.
    #[error("bad payload '{0}': expected 1 to 512 characters from [A-Za-z0-9_.-]")]
    BadPayload(String),
    /// A `200` whose result is not 16 lowercase hex digits.
    #[error("bad result '{0}': expected 16 lowercase hex digits")]
    BadResult(String),
}

fn split_fields(line: &str) -> Result<std::str::Split<'_, char>, ParseError> {
    // Empty fields would be two spaces in a row, or a leading/trailing space.
    if line.is_empty() {
        return Err(ParseError::MissingField("verb"));
    }
    if line.split(' ').any(str::is_empty) {
        return Err(ParseError::BadSpacing);
    }
    Ok(line.split(' '))
}

fn id_field<'a>(fields: &mut impl Iterator<Item = &'a str>) -> Result<ItemId, ParseError> {
    fields.next().ok_or(ParseError::MissingField("id"))?.parse()
}

fn payload_field<'a>(fields: &mut impl Iterator<Item = &'a str>) -> Result<Payload, ParseError> {
    Payload::new(fields.next().ok_or(ParseError::MissingField("payload"))?)
}

/// Error messages quote what they reject; a hostile peer must not be able to
/// make them long.
fn abbreviate(s: &str) -> String {
    const QUOTE: usize = 40;
    match s.char_indices().nth(QUOTE) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(s: &str) -> Payload {
        Payload::new(s).expect("test payloads are valid")
    }

    #[test]
    fn result_hash_matches_the_protocol_test_vectors() {
        let cases = [
            (0, "a", "4e5d25181d44678a"),
            (42, "hello", "853456910a36ffc9"),
            (u64::MAX, "x-y_z.0", "238352e6edb01e9b"),
        ];
        for (id, text, expected) in cases {
            let hash = ResultHash::of(ItemId(id), &payload(text));
            assert_eq!(hash.to_string(), expected, "id {id} payload {text}");
            assert_eq!(expected.parse::<ResultHash>(), Ok(hash));
        }
    }

    #[test]
    fn requests_round_trip() {
        let requests = [
            Request::Get(ItemId(7), payload("abc")),
            Request::Head(ItemId(u64::MAX)),
            Request::Body(ItemId(0), payload("x-y_z.0")),
            Request::Quit,
        ];
        for request in requests {
            assert_eq!(Request::parse(&request.to_string()), Ok(request));
        }
    }

    #[test]
    fn replies_round_trip() {
        let replies = [
            Reply::Ok,
            Reply::Nak("not today".into()),
            Reply::Success(ResultHash(0xdead_beef)),
            Reply::Failure("KO".into()),
            Reply::BadRequest("unknown verb 'X'".into()),
            Reply::Busy("busy".into()),
        ];
        for reply in replies {
            assert_eq!(Reply::parse(&reply.to_string()), Ok(reply));
        }
    }

    #[test]
    fn malformed_requests_say_what_is_wrong() {
        let cases = [
            ("", ParseError::MissingField("verb")),
            ("PUT 1 a", ParseError::UnknownVerb("PUT".into())),
            ("GET 1", ParseError::MissingField("payload")),
            ("GET  1 a", ParseError::BadSpacing),
            ("GET 1 a ", ParseError::BadSpacing),
            ("GET +1 a", ParseError::BadId("+1".into())),
            ("GET -1 a", ParseError::BadId("-1".into())),
            (
                "HEAD 18446744073709551616",
                ParseError::BadId("18446744073709551616".into()),
            ),
            ("GET 1 a/b", ParseError::BadPayload("a/b".into())),
            ("HEAD 1 a", ParseError::TrailingField("a".into())),
            ("QUIT now", ParseError::TrailingField("now".into())),
        ];
        for (line, expected) in cases {
            assert_eq!(Request::parse(line), Err(expected), "line {line:?}");
        }
        let long = "a".repeat(MAX_PAYLOAD + 1);
        assert!(matches!(
            Request::parse(&format!("GET 1 {long}")),
            Err(ParseError::BadPayload(quoted)) if quoted.len() < 50
        ));
    }

    #[test]
    fn leading_zeros_hash_as_the_canonical_id() {
        let Ok(Request::Get(id, p)) = Request::parse("GET 007 a") else {
            panic!("GET 007 a is a valid request");
        };
        assert_eq!(ResultHash::of(id, &p), ResultHash::of(ItemId(7), &p));
    }

    #[test]
    fn malformed_replies_are_errors() {
        for line in [
            "",
            "ok",
            "200",
            "200 ABCDEF0123456789",
            "200 123",
            "NAK",
            "NAK ",
            "999 x",
        ] {
            assert!(Reply::parse(line).is_err(), "line {line:?}");
        }
    }
}
