//! Deterministic dice: every random choice in the testbed is a pure function
//! of `(seed, id, phase, purpose)`.
//!
//! The server draws latencies and faults from these rolls, so a run is
//! reproducible whatever order requests arrive in, and the report can
//! recompute, item by item, what the server must have answered. Nothing here
//! is cryptographic; it only has to be well mixed and fast.

use crate::protocol::{ItemId, Phase};

/// What a roll is for. Separate purposes give independent rolls for the same
/// item, so "is it slow?" does not correlate with "does it fail?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The simulated service time.
    Latency,
    /// Whether a fault is injected, and which.
    Fault,
    /// The flavour of a fault (which kind of garbage).
    Variant,
    /// The item's payload.
    Payload,
}

/// A number in `[0, 1)`, the same every time for the same arguments.
pub fn roll(seed: u64, id: ItemId, phase: Phase, purpose: Purpose) -> f64 {
    unit(mix(seed, id, phase, purpose))
}

/// A number in `[0, 1)` from 64 well-mixed bits (the output of [`mix`] or
/// [`splitmix`]).
pub fn unit(bits: u64) -> f64 {
    // The top 53 bits fill an f64 mantissa exactly.
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// 64 well-mixed bits for the same arguments.
pub fn mix(seed: u64, id: ItemId, phase: Phase, purpose: Purpose) -> u64 {
    let mut x = splitmix(seed);
    x = splitmix(x ^ id.0);
    x = splitmix(x ^ phase.index());
    splitmix(x ^ purpose as u64)
}

/// SplitMix64's finaliser (Steele, Lea and Flood, 2014): a cheap bijection
/// whose output bits each depend on every input bit.
///
/// Public for client-side draws that are not about an item, such as stage
/// 5's reconnect jitter: chain it over the inputs (`splitmix(splitmix(seed)
/// ^ n)`) as [`mix`] does.
pub fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_are_repeatable_and_spread() {
        let draw = |id| roll(1, ItemId(id), Phase::Get, Purpose::Fault);
        assert_eq!(draw(5), draw(5));
        let n = 100_000;
        let below_tenth = (0..n).filter(|&i| draw(i) < 0.1).count();
        // 10% of 100k is 10k; binomial sd is ~95, so 9.5k..10.5k is > 5 sd.
        assert!((9_500..10_500).contains(&below_tenth), "{below_tenth}");
        assert!((0..n).all(|i| (0.0..1.0).contains(&draw(i))));
    }

    #[test]
    fn purposes_and_phases_are_independent_streams() {
        let a = mix(1, ItemId(3), Phase::Head, Purpose::Latency);
        assert_ne!(a, mix(1, ItemId(3), Phase::Head, Purpose::Fault));
        assert_ne!(a, mix(1, ItemId(3), Phase::Body, Purpose::Latency));
        assert_ne!(a, mix(2, ItemId(3), Phase::Head, Purpose::Latency));
    }
}
