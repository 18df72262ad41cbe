//! How long the simulated server "works" on a request: the latency models.
//!
//! Every draw is a pure function of `(seed, id, phase)` (see [`crate::dice`]),
//! so two runs with the same seed see the same service times, item by item.
//! The spec strings are the ones the `--latency` flag takes.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::dice::{Purpose, roll};
use crate::duration::{format_duration, parse_duration};
use crate::protocol::{ItemId, Phase};

/// The forms `--latency` accepts, quoted in every error about it.
pub const LATENCY_FORMS: &str = "10ms (fixed), uniform:1ms..20ms, exp:10ms (exponential with that mean), bimodal:0.1:100ms:5ms (10% take 100ms, the rest 5ms), pareto:2ms:1.5 (at least 2ms, a heavy tail of shape 1.5, above 1), every duration at most a day";

/// The largest Pareto shape accepted: beyond it the tail is too thin to
/// matter (at 100, one request in a million takes 15% over the minimum).
const MAX_PARETO_SHAPE: f64 = 100.0;

/// A distribution of service times.
///
/// # Examples
///
/// Parsed from the `--latency` forms; a draw is a pure function of the
/// seed, the item and the phase, so every run of a seed sees the same
/// service times:
///
/// ```
/// use std::time::Duration;
///
/// use testbed::latency::LatencyModel;
/// use testbed::protocol::{ItemId, Phase};
///
/// let model: LatencyModel = "bimodal:0.1:100ms:5ms".parse().expect("a valid spec");
/// // 10% of 100 ms plus 90% of 5 ms: the mean Little's law uses.
/// assert_eq!(model.mean(), Duration::from_micros(14_500));
/// let draw = model.sample(7, ItemId(3), Phase::Head);
/// assert_eq!(draw, model.sample(7, ItemId(3), Phase::Head));
/// assert!(draw == Duration::from_millis(100) || draw == Duration::from_millis(5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LatencyModel {
    /// Every request takes exactly this long.
    Fixed(Duration),
    /// Uniform between `low` and `high`.
    Uniform {
        /// Shortest service time.
        low: Duration,
        /// Longest service time.
        high: Duration,
    },
    /// Exponential with this mean: mostly short, with a long tail.
    Exponential(Duration),
    /// A fraction `p_slow` of requests take `slow`, the others `fast`: the
    /// shape that exposes head-of-line blocking (stage 3 against stage 4).
    Bimodal {
        /// Probability of a slow request, in `[0, 1]`.
        p_slow: f64,
        /// Service time of a slow request.
        slow: Duration,
        /// Service time of the others.
        fast: Duration,
    },
    /// Pareto (type I): at least `scale`, with a tail that falls off as a
    /// power, `P(T > t) = (scale / t)^shape`. Real service times look like
    /// this: most are near the minimum, a few are many times longer, and
    /// the few dominate the mean. The smaller the shape, the heavier the
    /// tail; at shape 1.5 one request in a thousand takes 100 times the
    /// minimum, where an exponential with the same mean almost never does.
    Pareto {
        /// The shortest service time, and the distribution's scale.
        scale: Duration,
        /// The tail index, above 1 so that the mean is finite (Little's
        /// law needs one).
        shape: f64,
    },
}

impl LatencyModel {
    /// The service time for this phase of this item.
    pub fn sample(&self, seed: u64, id: ItemId, phase: Phase) -> Duration {
        let u = roll(seed, id, phase, Purpose::Latency);
        match *self {
            LatencyModel::Fixed(d) => d,
            LatencyModel::Uniform { low, high } => low + (high - low).mul_f64(u),
            // Inverse-CDF sampling; `u < 1` so the logarithm is finite.
            LatencyModel::Exponential(mean) => mean.mul_f64(-(1.0 - u).ln()),
            LatencyModel::Bimodal { p_slow, slow, fast } => {
                if u < p_slow {
                    slow
                } else {
                    fast
                }
            }
            // Inverse-CDF sampling again: `1 - u` is in (0, 1], so the power
            // is at least 1. It can be huge (2^53 at most, for a shape just
            // above 1): saturate instead of letting `Duration` overflow.
            LatencyModel::Pareto { scale, shape } => {
                let factor = (1.0 - u).powf(-1.0 / shape);
                Duration::try_from_secs_f64(scale.as_secs_f64() * factor).unwrap_or(Duration::MAX)
            }
        }
    }

    /// The distribution's mean: the nominal service time for Little's law
    /// when the server cannot tell us what it really applied.
    pub fn mean(&self) -> Duration {
        match *self {
            LatencyModel::Fixed(d) | LatencyModel::Exponential(d) => d,
            LatencyModel::Uniform { low, high } => (low + high) / 2,
            LatencyModel::Bimodal { p_slow, slow, fast } => {
                slow.mul_f64(p_slow) + fast.mul_f64(1.0 - p_slow)
            }
            LatencyModel::Pareto { scale, shape } => scale.mul_f64(shape / (shape - 1.0)),
        }
    }
}

impl Default for LatencyModel {
    /// `10ms`, the default of every stage binary.
    fn default() -> Self {
        LatencyModel::Fixed(Duration::from_millis(10))
    }
}

/// Why a `--latency` spec was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad latency '{spec}': expected {LATENCY_FORMS}")]
pub struct LatencySpecError {
    spec: String,
}

impl FromStr for LatencyModel {
    type Err = LatencySpecError;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let bad = || LatencySpecError {
            spec: spec.to_owned(),
        };
        let duration = |s: &str| parse_duration(s).ok_or_else(bad);
        let parts: Vec<&str> = spec.split(':').collect();
        match parts.as_slice() {
            [fixed] => Ok(LatencyModel::Fixed(duration(fixed)?)),
            ["uniform", range] => {
                let (low, high) = range.split_once("..").ok_or_else(bad)?;
                let (low, high) = (duration(low)?, duration(high)?);
                if low > high {
                    return Err(bad());
                }
                Ok(LatencyModel::Uniform { low, high })
            }
            ["exp", mean] => Ok(LatencyModel::Exponential(duration(mean)?)),
            ["bimodal", p, slow, fast] => {
                let p_slow: f64 = p.parse().map_err(|_| bad())?;
                if !(0.0..=1.0).contains(&p_slow) {
                    return Err(bad());
                }
                Ok(LatencyModel::Bimodal {
                    p_slow,
                    slow: duration(slow)?,
                    fast: duration(fast)?,
                })
            }
            ["pareto", scale, shape] => {
                let shape: f64 = shape.parse().map_err(|_| bad())?;
                // At shape 1 or below the mean is infinite, and so would be
                // the ideal's service time; above 100 the tail is gone and
                // the model is a fixed latency in disguise.
                if !(shape > 1.0 && shape <= MAX_PARETO_SHAPE) {
                    return Err(bad());
                }
                Ok(LatencyModel::Pareto {
                    scale: duration(scale)?,
                    shape,
                })
            }
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for LatencyModel {
    /// The spec form, so a model can be printed and parsed back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = |d: Duration| format_duration(d);
        match *self {
            LatencyModel::Fixed(x) => write!(f, "{}", d(x)),
            LatencyModel::Uniform { low, high } => write!(f, "uniform:{}..{}", d(low), d(high)),
            LatencyModel::Exponential(mean) => write!(f, "exp:{}", d(mean)),
            LatencyModel::Bimodal { p_slow, slow, fast } => {
                write!(f, "bimodal:{p_slow}:{}:{}", d(slow), d(fast))
            }
            LatencyModel::Pareto { scale, shape } => write!(f, "pareto:{}:{shape}", d(scale)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn parses_every_documented_form() {
        assert_eq!("10ms".parse(), Ok(LatencyModel::Fixed(ms(10))));
        assert_eq!(
            "uniform:1ms..20ms".parse(),
            Ok(LatencyModel::Uniform {
                low: ms(1),
                high: ms(20)
            })
        );
        assert_eq!("exp:10ms".parse(), Ok(LatencyModel::Exponential(ms(10))));
        assert_eq!(
            "bimodal:0.1:100ms:5ms".parse(),
            Ok(LatencyModel::Bimodal {
                p_slow: 0.1,
                slow: ms(100),
                fast: ms(5)
            })
        );
    }

    #[test]
    fn rejects_with_the_accepted_forms() {
        for bad in [
            "",
            "fast",
            "uniform:5ms",
            "uniform:9ms..2ms",
            "bimodal:2:1ms:1ms",
            "exp:",
            "pareto:1ms:1",
            "pareto:1ms:0.5",
            "pareto:1ms:-2",
            "pareto:1ms:NaN",
            "pareto:1ms",
        ] {
            let error = bad.parse::<LatencyModel>().expect_err(bad).to_string();
            assert!(error.contains("uniform:1ms..20ms"), "{error}");
        }
    }

    #[test]
    fn samples_follow_the_model() {
        let n = 20_000;
        let mean_of = |model: LatencyModel| {
            let total: Duration = (0..n).map(|i| model.sample(7, ItemId(i), Phase::Get)).sum();
            total.as_secs_f64() / n as f64
        };
        for spec in [
            "10ms",
            "uniform:2ms..20ms",
            "exp:10ms",
            "bimodal:0.1:100ms:5ms",
        ] {
            let model: LatencyModel = spec.parse().expect("valid spec");
            let expected = model.mean().as_secs_f64();
            let got = mean_of(model);
            assert!(
                (got - expected).abs() < 0.03 * expected,
                "{spec}: {got} vs {expected}"
            );
        }
        let bimodal: LatencyModel = "bimodal:0.1:100ms:5ms".parse().expect("valid spec");
        let slow = (0..n)
            .filter(|&i| bimodal.sample(7, ItemId(i), Phase::Body) == ms(100))
            .count();
        assert!((1_800..2_200).contains(&slow), "{slow}");
    }

    #[test]
    fn pareto_has_its_floor_its_mean_and_its_tail() {
        let model: LatencyModel = "pareto:2ms:1.5".parse().expect("valid spec");
        let mean = model.mean().as_secs_f64();
        assert!((mean - 0.006).abs() < 1e-9, "{mean}");
        let n = 200_000;
        let samples: Vec<Duration> = (0..n)
            .map(|i| model.sample(3, ItemId(i), Phase::Get))
            .collect();
        assert!(samples.iter().all(|&s| s >= ms(2)));
        // P(T > 100 x scale) = 100^-1.5 = 1/1000: about 200 of 200,000.
        let tail = samples.iter().filter(|&&s| s > ms(200)).count();
        assert!((120..300).contains(&tail), "{tail}");
        // The same line always gets the same draw.
        assert_eq!(
            model.sample(3, ItemId(7), Phase::Body),
            model.sample(3, ItemId(7), Phase::Body)
        );
        // The most extreme draw does not overflow.
        let wild = LatencyModel::Pareto {
            scale: Duration::from_secs(1 << 40),
            shape: 1.0001,
        };
        assert!(
            (0..1_000)
                .all(|i| wild.sample(1, ItemId(i), Phase::Get) >= Duration::from_secs(1 << 40))
        );
    }

    #[test]
    fn display_parses_back() {
        for spec in [
            "10ms",
            "uniform:1ms..20ms",
            "exp:2.5ms",
            "bimodal:0.1:100ms:5ms",
            "pareto:2.0ms:1.5",
        ] {
            let model: LatencyModel = spec.parse().expect("valid spec");
            assert_eq!(model.to_string().parse(), Ok(model));
        }
    }
}
