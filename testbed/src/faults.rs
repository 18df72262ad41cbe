//! Deterministic fault injection: which request the server sabotages, and how.
//!
//! A fault is decided per `(seed, id, phase)` with [`crate::dice`], never by
//! a shared random generator, so the decision does not depend on the order
//! requests arrive in. That is what makes faults *testable*: the report calls
//! [`FaultPlan::expected`] to know, before looking at the database, exactly
//! which items must fail and with which [`ErrorKind`].

use std::fmt;
use std::str::FromStr;

use crate::dice::{Purpose, roll};
use crate::outcome::ErrorKind;
use crate::protocol::{ItemId, Phase, Phases};

/// The forms `--faults` accepts, quoted in every error about it.
pub const FAULT_FORMS: &str = "comma-separated kind=probability pairs, kinds nak, ko, hang, drop, garbage, trickle (e.g. nak=0.05,ko=0.05,hang=0.01), or none";

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
}

impl Fault {
    /// Every fault, in the order their probabilities are stacked.
    pub const ALL: [Fault; 6] = [
        Fault::Nak,
        Fault::Ko,
        Fault::Hang,
        Fault::Drop,
        Fault::Garbage,
        Fault::Trickle,
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
    pub fn error_kind(self) -> Option<ErrorKind> {
        match self {
            Fault::Nak => Some(ErrorKind::Nak),
            Fault::Ko => Some(ErrorKind::Ko),
            Fault::Hang => Some(ErrorKind::Timeout),
            Fault::Drop => Some(ErrorKind::Closed),
            Fault::Garbage => Some(ErrorKind::Protocol),
            Fault::Trickle => None,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The probability of each fault per request line (the `--faults` flag).
///
/// For a phase, only the faults that [apply](Fault::applies_to) to it are
/// stacked, so `nak=0.1,ko=0.1` with two phases NAKs 10% of the `HEAD`s and
/// fails 10% of the `BODY`s that follow (9% of all items).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FaultPlan {
    /// Probability per kind, indexed like [`Fault::ALL`].
    rates: [f64; 6],
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

    /// The probability of `fault` on a line it applies to.
    pub fn rate(&self, fault: Fault) -> f64 {
        self.rates[fault as usize]
    }

    /// True when no fault has a non-zero probability.
    pub fn is_none(&self) -> bool {
        self.rates.iter().all(|&r| r == 0.0)
    }

    /// The fault injected on this request line, if any.
    pub fn decide(&self, seed: u64, id: ItemId, phase: Phase) -> Option<Fault> {
        if self.is_none() {
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
    /// or the kind of failure the server forces on it.
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
        for pair in spec.split(',') {
            let (name, rate) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("'{pair}' is not kind=probability")))?;
            let fault = Fault::ALL
                .into_iter()
                .find(|f| f.as_str() == name)
                .ok_or_else(|| bad(format!("unknown fault '{name}'")))?;
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
    /// The spec form (`none` when empty).
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
        for bad in ["nak", "nak=2", "boom=0.1", "nak=0.6,hang=0.6", "ko=x"] {
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
    fn trickle_is_not_decisive() {
        let plan = FaultPlan::none().with(Fault::Trickle, 1.0);
        assert_eq!(plan.decisive(1, ItemId(9), Phases::Two), None);
        assert_eq!(plan.expected(1, ItemId(9), Phases::One), None);
    }
}
