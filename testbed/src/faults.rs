//! Deterministic fault injection: which request the server sabotages, and how.
//!
//! A fault is decided per request line, from `(seed, id, phase)` with
//! [`crate::dice`], never by a shared random generator, so the decision does
//! not depend on the order requests arrive in. That is what makes faults
//! *testable*: the report calls [`FaultPlan::expected`] to know, before
//! looking at the database, exactly which items must fail and with which
//! [`ErrorKind`].
//!
//! The plan also carries the server's outage window ([`Outage`], the
//! `--outage` flag), the one fault that is a matter of time rather than of
//! the line: [`FaultPlan::expected`] cannot predict it, and says nothing
//! about it.

use std::fmt;
use std::str::FromStr;

use crate::dice::{Purpose, roll};
use crate::outage::Outage;
use crate::outcome::ErrorKind;
use crate::protocol::{ItemId, Phase, Phases};

/// The forms `--faults` accepts, quoted in every error about it.
pub const FAULT_FORMS: &str = "comma-separated kind=probability pairs, each kind once, kinds nak, ko, hang, drop, garbage, trickle, reset, blackhole (e.g. nak=0.05,ko=0.05,hang=0.01), or none";

/// One way the server can misbehave on a request line (the book's protocol
/// appendix, "Faults").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// `NAK <reason>` to a `HEAD`.
    Nak,
    /// `500 <reason>` to a `GET` or `BODY`.
    Ko,
    /// No reply ever; the connection stays open.
    Hang,
    /// The server closes the connection instead of replying.
    Drop,
    /// A reply that breaks the framing rules.
    Garbage,
    /// A correct reply, written a few bytes at a time.
    Trickle,
    /// The server aborts the connection with a TCP reset (`SO_LINGER` 0)
    /// instead of replying: the client's read fails with `ECONNRESET`
    /// rather than seeing the end of the stream, as after `drop`.
    Reset,
    /// The whole connection goes silent: no reply, no further read, and no
    /// close, even when the client closes (what a NAT or a firewall that
    /// forgot the flow does). Unlike `hang`, which still reads and notices
    /// the client leaving, nothing at all comes back.
    Blackhole,
}

impl Fault {
    /// Every fault, in the order their probabilities are stacked. New kinds
    /// go at the end, so that a spec without them draws exactly what it
    /// drew before they existed.
    pub const ALL: [Fault; 8] = [
        Fault::Nak,
        Fault::Ko,
        Fault::Hang,
        Fault::Drop,
        Fault::Garbage,
        Fault::Trickle,
        Fault::Reset,
        Fault::Blackhole,
    ];

    /// The name used in specs and statistics.
    pub fn as_str(self) -> &'static str {
        match self {
            Fault::Nak => "nak",
            Fault::Ko => "ko",
            Fault::Hang => "hang",
            Fault::Drop => "drop",
            Fault::Garbage => "garbage",
            Fault::Trickle => "trickle",
            Fault::Reset => "reset",
            Fault::Blackhole => "blackhole",
        }
    }

    /// Whether this fault can hit a request line of this phase: `NAK` only
    /// answers `HEAD`, `500` only `GET` and `BODY`, the rest hit anything.
    pub fn applies_to(self, phase: Phase) -> bool {
        match self {
            Fault::Nak => phase == Phase::Head,
            Fault::Ko => phase != Phase::Head,
            _ => true,
        }
    }

    /// How a correct client reports this fault; `None` when it still
    /// succeeds (a trickled reply is slow, not wrong).
    ///
    /// A reset is `closed`, like `drop`: both leave the client without a
    /// reply and without a connection, and the report's words are about
    /// what happened to the item. What differs is the road there (an error
    /// from `read` instead of end-of-file), and a stage must take both.
    pub fn error_kind(self) -> Option<ErrorKind> {
        match self {
            Fault::Nak => Some(ErrorKind::Nak),
            Fault::Ko => Some(ErrorKind::Ko),
            Fault::Hang | Fault::Blackhole => Some(ErrorKind::Timeout),
            Fault::Drop | Fault::Reset => Some(ErrorKind::Closed),
            Fault::Garbage => Some(ErrorKind::Protocol),
            Fault::Trickle => None,
        }
    }

    /// Whether a client needs a read timeout to get past this fault: no
    /// byte and no close ever comes after it.
    pub fn needs_read_timeout(self) -> bool {
        matches!(self, Fault::Hang | Fault::Blackhole)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The probability of each fault per request line (the `--faults` flag),
/// and the outage window, if any (the `--outage` flag).
///
/// For a phase, only the faults that [apply](Fault::applies_to) to it are
/// stacked, so `nak=0.1,ko=0.1` with two phases NAKs 10% of the `HEAD`s and
/// fails 10% of the `BODY`s that follow (9% of all items).
///
/// # Examples
///
/// Which items fail is decided by `(seed, id, phase)` alone, so the report
/// can recompute what each item's outcome must be:
///
/// ```
/// use testbed::faults::{Fault, FaultPlan};
/// use testbed::outcome::ErrorKind;
/// use testbed::protocol::{ItemId, Phases};
///
/// let plan: FaultPlan = "nak=0.1,ko=0.1".parse().expect("a valid spec");
/// assert_eq!(plan.rate(Fault::Nak), 0.1);
/// let must_fail = |id| plan.expected(1, ItemId(id), Phases::Two);
/// // The same answer every time it is asked.
/// assert_eq!(must_fail(17), must_fail(17));
/// // 10% of the HEADs are NAKed, then 10% of the BODYs that follow fail:
/// // about 19% of the items.
/// let failing = (0..1_000).filter(|&id| must_fail(id).is_some()).count();
/// assert!((150..=230).contains(&failing), "{failing} of 1000");
/// assert!((0..1_000).all(|id| must_fail(id) != Some(ErrorKind::Timeout)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FaultPlan {
    /// Probability per kind, indexed like [`Fault::ALL`].
    rates: [f64; Fault::ALL.len()],
    /// When the server is down, if ever.
    outage: Option<Outage>,
}

impl FaultPlan {
    /// No faults at all.
    pub fn none() -> FaultPlan {
        FaultPlan::default()
    }

    /// The plan with `fault` at probability `rate`, the others unchanged.
    pub fn with(mut self, fault: Fault, rate: f64) -> FaultPlan {
        self.rates[fault as usize] = rate;
        self
    }

    /// The plan with this outage window (or none), the rates unchanged.
    pub fn with_outage(mut self, outage: Option<Outage>) -> FaultPlan {
        self.outage = outage;
        self
    }

    /// The probability of `fault` on a line it applies to.
    pub fn rate(&self, fault: Fault) -> f64 {
        self.rates[fault as usize]
    }

    /// The outage window, if the server has one.
    pub fn outage(&self) -> Option<Outage> {
        self.outage
    }

    /// True when no fault has a non-zero probability and there is no
    /// outage.
    pub fn is_none(&self) -> bool {
        self.rates.iter().all(|&r| r == 0.0) && self.outage.is_none()
    }

    /// The first fault of the plan after which only a read timeout gets a
    /// client going again ([`Fault::needs_read_timeout`]), if any.
    pub fn needing_read_timeout(&self) -> Option<Fault> {
        Fault::ALL
            .into_iter()
            .find(|&f| f.needs_read_timeout() && self.rate(f) > 0.0)
    }

    /// The fault injected on this request line, if any.
    pub fn decide(&self, seed: u64, id: ItemId, phase: Phase) -> Option<Fault> {
        if self.rates.iter().all(|&r| r == 0.0) {
            return None;
        }
        let u = roll(seed, id, phase, Purpose::Fault);
        let mut threshold = 0.0;
        for fault in Fault::ALL.into_iter().filter(|f| f.applies_to(phase)) {
            threshold += self.rate(fault);
            if u < threshold {
                return Some(fault);
            }
        }
        None
    }

    // ANCHOR: expected
    /// The fault that ends this item's request, if any: the first phase
    /// whose fault is not a harmless trickle. After a fault on `HEAD` there
    /// is no `BODY`, so the `BODY`'s own draw never matters.
    pub fn decisive(&self, seed: u64, id: ItemId, phases: Phases) -> Option<Fault> {
        let steps: &[Phase] = match phases {
            Phases::One => &[Phase::Get],
            Phases::Two => &[Phase::Head, Phase::Body],
        };
        steps
            .iter()
            .filter_map(|&phase| self.decide(seed, id, phase))
            .find(|fault| fault.error_kind().is_some())
    }

    /// What a correct client must record for this item: `None` for success,
    /// or the kind of failure the server forces on it. The outage window is
    /// not in it: which items it hits depends on when they are sent.
    pub fn expected(&self, seed: u64, id: ItemId, phases: Phases) -> Option<ErrorKind> {
        self.decisive(seed, id, phases).and_then(Fault::error_kind)
    }
    // ANCHOR_END: expected
}

/// Why a `--faults` spec was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad faults '{spec}': {why}; expected {FAULT_FORMS}")]
pub struct FaultSpecError {
    spec: String,
    why: String,
}

impl FromStr for FaultPlan {
    type Err = FaultSpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let bad = |why: String| FaultSpecError {
            spec: spec.to_owned(),
            why,
        };
        let mut plan = FaultPlan::none();
        if spec == "none" || spec.is_empty() {
            return Ok(plan);
        }
        let mut seen = Vec::new();
        for pair in spec.split(',') {
            let (name, rate) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("'{pair}' is not kind=probability")))?;
            let fault = Fault::ALL
                .into_iter()
                .find(|f| f.as_str() == name)
                .ok_or_else(|| bad(format!("unknown fault '{name}'")))?;
            // `nak=0.1,nak=0.2` has no one meaning: the last one winning
            // silently would hide a typo.
            if seen.contains(&fault) {
                return Err(bad(format!("'{fault}' is given twice")));
            }
            seen.push(fault);
            let rate: f64 = rate
                .parse()
                .ok()
                .filter(|r| (0.0..=1.0).contains(r))
                .ok_or_else(|| bad(format!("'{rate}' is not a probability in 0..1")))?;
            plan = plan.with(fault, rate);
        }
        for phase in [Phase::Get, Phase::Head, Phase::Body] {
            let total: f64 = Fault::ALL
                .into_iter()
                .filter(|f| f.applies_to(phase))
                .map(|f| plan.rate(f))
                .sum();
            if total > 1.0 + 1e-9 {
                return Err(bad(format!("probabilities add up to {total} on one line")));
            }
        }
        Ok(plan)
    }
}

impl fmt::Display for FaultPlan {
    /// The `--faults` spec form (`none` when no line fault is planned). The
    /// outage window has a flag of its own and is not part of it: print
    /// [`FaultPlan::outage`] apart.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = Fault::ALL
            .into_iter()
            .filter(|&fault| self.rate(fault) > 0.0)
            .map(|fault| format!("{fault}={}", self.rate(fault)))
            .collect();
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_specs() {
        let plan: FaultPlan = "nak=0.05,ko=0.05,hang=0.01".parse().expect("valid spec");
        assert_eq!(plan.rate(Fault::Nak), 0.05);
        assert_eq!(plan.rate(Fault::Hang), 0.01);
        assert_eq!(plan.to_string().parse(), Ok(plan));
        assert_eq!("none".parse(), Ok(FaultPlan::none()));
    }

    #[test]
    fn rejects_bad_specs_naming_the_forms() {
        for bad in [
            "nak",
            "nak=2",
            "boom=0.1",
            "nak=0.6,hang=0.6",
            "ko=x",
            "nak=0.1,nak=0.2",
            "reset=0.5,drop=0.3,blackhole=0.3",
        ] {
            let error = bad.parse::<FaultPlan>().expect_err(bad).to_string();
            assert!(error.contains("nak, ko, hang"), "{error}");
        }
    }

    #[test]
    fn faults_only_hit_phases_they_apply_to() {
        let plan = FaultPlan::none().with(Fault::Nak, 1.0).with(Fault::Ko, 1.0);
        assert_eq!(plan.decide(1, ItemId(1), Phase::Head), Some(Fault::Nak));
        assert_eq!(plan.decide(1, ItemId(1), Phase::Body), Some(Fault::Ko));
        assert_eq!(plan.decide(1, ItemId(1), Phase::Get), Some(Fault::Ko));
    }

    #[test]
    fn rates_are_honoured_per_phase() {
        let plan: FaultPlan = "nak=0.1,ko=0.1".parse().expect("valid spec");
        let n = 20_000;
        let count = |kind| {
            (0..n)
                .filter(|&i| plan.expected(3, ItemId(i), Phases::Two) == Some(kind))
                .count()
        };
        // 10% NAK at HEAD, then 10% of the remaining 90% fail at BODY.
        assert!((1_850..2_150).contains(&count(ErrorKind::Nak)));
        assert!((1_650..1_950).contains(&count(ErrorKind::Ko)));
    }

    #[test]
    fn reset_and_blackhole_hit_every_phase_and_are_expected() {
        let plan: FaultPlan = "reset=0.5,blackhole=0.5".parse().expect("valid spec");
        assert_eq!(plan.to_string(), "reset=0.5,blackhole=0.5");
        assert_eq!(plan.needing_read_timeout(), Some(Fault::Blackhole));
        let expected = |id| plan.expected(4, ItemId(id), Phases::One);
        let kinds: std::collections::BTreeSet<_> = (0..100).filter_map(expected).collect();
        assert_eq!(
            kinds.into_iter().collect::<Vec<_>>(),
            [ErrorKind::Timeout, ErrorKind::Closed]
        );
        for phase in [Phase::Get, Phase::Head, Phase::Body] {
            assert!(Fault::Reset.applies_to(phase) && Fault::Blackhole.applies_to(phase));
        }
    }

    #[test]
    fn new_kinds_leave_the_old_draws_alone() {
        // The kinds are stacked in `Fault::ALL` order: appending two must
        // not move what an older spec decides for any line.
        let old: FaultPlan = "nak=0.2,ko=0.2,drop=0.1".parse().expect("valid spec");
        let new = old.with(Fault::Reset, 0.1).with(Fault::Blackhole, 0.1);
        for id in 0..2_000 {
            let (a, b) = (
                old.decide(5, ItemId(id), Phase::Head),
                new.decide(5, ItemId(id), Phase::Head),
            );
            assert!(a == b || (a.is_none() && b >= Some(Fault::Reset)), "{id}");
        }
    }

    #[test]
    fn the_outage_is_part_of_the_plan_but_not_of_its_spec() {
        let outage: Outage = "10ms+20ms".parse().expect("valid spec");
        let plan = FaultPlan::none().with_outage(Some(outage));
        assert!(!plan.is_none());
        assert_eq!(plan.outage(), Some(outage));
        assert_eq!(plan.to_string(), "none");
        assert_eq!(plan.decide(1, ItemId(1), Phase::Get), None);
    }

    #[test]
    fn trickle_is_not_decisive() {
        let plan = FaultPlan::none().with(Fault::Trickle, 1.0);
        assert_eq!(plan.decisive(1, ItemId(9), Phases::Two), None);
        assert_eq!(plan.expected(1, ItemId(9), Phases::One), None);
    }
}
