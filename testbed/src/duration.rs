//! Durations as people type them on a command line: `10ms`, `1.5s`, `250us`.
//!
//! One parser for every flag that takes a time (`--latency`, `--outage`,
//! every timeout of every stage and of `slow-server`), so they all accept
//! the same forms and refuse the same values.
//!
//! # Why there is a largest duration
//!
//! A program adds a timeout to "now" to get a deadline. `Instant + Duration`
//! panics when the sum does not fit (`--read-timeout
//! 10000000000000000000s` once did, once per fiber in 06-scheduler), and a
//! poll(2) timeout in milliseconds is an `i32`, about 24 days. Rather than
//! have every stage saturate its own arithmetic, the parser refuses
//! anything above [`MAX_DURATION`], a day: far above any latency or timeout
//! a run can mean, and far below every limit above.

use std::time::Duration;

/// The longest duration any flag accepts: one day.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// The forms [`parse_duration`] accepts, for error messages.
pub const DURATION_FORMS: &str = "a number with a unit up to a day: 250us, 10ms, 1.5s, 86400s";

/// Parses `<number><unit>` with unit `us` (or `µs`), `ms` or `s`; `0` alone
/// is also accepted. Returns `None` for anything else, and for a duration
/// above [`MAX_DURATION`].
///
/// ```
/// use std::time::Duration;
/// use testbed::duration::parse_duration;
///
/// assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
/// assert_eq!(parse_duration("86400s"), Some(Duration::from_secs(86_400)));
/// assert_eq!(parse_duration("86401s"), None, "more than a day");
/// assert_eq!(parse_duration("-1ms"), None);
/// ```
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if text == "0" {
        return Some(Duration::ZERO);
    }
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let seconds_per_unit = match unit {
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(value * seconds_per_unit)
        .ok()
        .filter(|d| *d <= MAX_DURATION)
}

/// Renders a duration the way people read them: `850us`, `12.5ms`, `3.20s`.
pub fn format_duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1_000.0 {
        format!("{micros:.0}us")
    } else if micros < 1_000_000.0 {
        format!("{:.1}ms", micros / 1e3)
    } else {
        format!("{:.2}s", micros / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        let ms = Duration::from_millis;
        assert_eq!(parse_duration("10ms"), Some(ms(10)));
        assert_eq!(parse_duration("1.5s"), Some(ms(1500)));
        assert_eq!(parse_duration("250us"), Some(Duration::from_micros(250)));
        assert_eq!(parse_duration("250µs"), Some(Duration::from_micros(250)));
        assert_eq!(parse_duration("0"), Some(Duration::ZERO));
        assert_eq!(parse_duration("0ms"), Some(Duration::ZERO));
        assert_eq!(parse_duration("86400s"), Some(MAX_DURATION));
        for bad in [
            "",
            "10",
            "ms",
            "-1ms",
            "1.2.3ms",
            "10 ms",
            "10min",
            "1e3ms",
            // Above a day: once a panic when added to an `Instant`.
            "86400.5s",
            "10000000000000000000s",
            "100000000000000000000000000000000000000ms",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn formats_at_a_readable_scale() {
        assert_eq!(format_duration(Duration::from_micros(850)), "850us");
        assert_eq!(format_duration(Duration::from_micros(12_500)), "12.5ms");
        assert_eq!(format_duration(Duration::from_millis(3_200)), "3.20s");
    }
}
