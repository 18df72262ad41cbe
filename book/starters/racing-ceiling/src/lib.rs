//! Racing the stages, exercise: where the ceiling is, before you race.
//!
//! Two limits bound any client's throughput, and the race's two workloads
//! are built to meet one each. **Little's law**: with `in flight` requests
//! at once, each spending `phases × service time` in the server, no client
//! does more than `in flight / (phases × service time)` items a second,
//! however fast the machine. **The machine**: when the server answers at
//! once, every item still costs CPU time, in the client and in the server,
//! and `cores` cores cannot give more than `cores / CPU time per item`
//! items a second, however many requests are in flight.
//!
//! Write [`latency_bound`], [`cpu_bound`] and [`ceiling`]: the lower of the
//! two, and which one it is. The tests check them against the race's
//! workloads, and against a real run of stage 1, which must not beat its
//! ceiling.
//!
//! The race at 2 ms on two cores: 50 in flight over 4 ms per item is
//! 12,500 items/s, below the 33,333 that 60 µs of CPU per item allows:
//!
//! ```
//! use std::time::Duration;
//! use racing_ceiling::{Bound, Machine, Workload, ceiling};
//!
//! let service = Duration::from_millis(2);
//! let race = Workload { items: 4_000, conns: 50, phases: 2, service };
//! let machine = Machine { cores: 2.0, cpu_per_item: Duration::from_micros(60) };
//! let (items_per_second, bound) = ceiling(&race, &machine);
//! assert_eq!((items_per_second.round(), bound), (12_500.0, Bound::Latency), "12,500 items/s, bounded by latency");
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("racing-ceiling");

use std::time::Duration;

// ANCHOR: types
/// What the client is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// Items in the list.
    pub items: u64,
    /// Requests the client can have in flight (`--conns`).
    pub conns: u64,
    /// Request lines, and service times, per item (`--phases`).
    pub phases: u32,
    /// The server's mean service time per request line (`--latency`).
    pub service: Duration,
}

/// What the machine can give.
#[derive(Debug, Clone, Copy)]
pub struct Machine {
    /// Cores shared by the client and the server.
    pub cores: f64,
    /// CPU time one item costs, client and server together.
    pub cpu_per_item: Duration,
}

/// Which limit a ceiling comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Little's law: requests in flight over the time each takes.
    Latency,
    /// The cores over the CPU time of an item.
    Cpu,
}
// ANCHOR_END: types

// ANCHOR: exercise
/// Little's law: the most items per second the workload allows, whatever
/// the machine. `f64::INFINITY` when the service time is zero.
pub fn latency_bound(w: &Workload) -> f64 {
    // TODO: how many requests can really be in flight, and how long does each item spend in the server?
    todo!("how many requests can really be in flight, and how long does each item spend in the server?")
}

/// The most items per second the machine allows, whatever the workload.
/// `f64::INFINITY` when an item costs no CPU time.
pub fn cpu_bound(m: &Machine) -> f64 {
    // TODO: how many CPU-seconds does the machine have per second, and how many does an item take?
    todo!("how many CPU-seconds does the machine have per second, and how many does an item take?")
}

/// The lower of the two bounds, and which one it is (the latency bound
/// when they are equal).
pub fn ceiling(w: &Workload, m: &Machine) -> (f64, Bound) {
    // TODO: which of the two limits is met first?
    todo!("which of the two limits is met first?")
}
// ANCHOR_END: exercise

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::cli::Settings;
    use testbed::harness::execute;
    use testbed::hints::Outcome;
    use testbed::latency::LatencyModel;

    /// The race's latency-bound workload: 4,000 two-phase items, 50
    /// connections, 2 ms per request line.
    fn race_at_2ms() -> Workload {
        Workload {
            items: 4_000,
            conns: 50,
            phases: 2,
            service: Duration::from_millis(2),
        }
    }

    /// Two cores, and 60 µs of CPU per item between the client and the
    /// server: the order of magnitude of the race at zero latency.
    fn two_cores() -> Machine {
        Machine {
            cores: 2.0,
            cpu_per_item: Duration::from_micros(60),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn littles_law_at_the_race_s_two_milliseconds() {
        assert!(
            close(latency_bound(&race_at_2ms()), 12_500.0),
            "50 in flight, each item 2 phases of 2 ms: 50 / 4 ms = 12,500 items/s, not {}",
            latency_bound(&race_at_2ms())
        );
        let sync = Workload {
            conns: 1,
            ..race_at_2ms()
        };
        assert!(
            close(latency_bound(&sync), 250.0),
            "one in flight, 4 ms per item: 250 items/s"
        );
    }

    #[test]
    fn service_times_below_a_millisecond_count_to_the_microsecond() {
        for (service, expected) in [(1_500, 20_000.0 / 3.0), (250, 40_000.0)] {
            let w = Workload {
                items: 100,
                conns: 10,
                phases: 1,
                service: Duration::from_micros(service),
            };
            assert!(
                close(latency_bound(&w), expected),
                "10 in flight, {service} µs per item: {expected:.1} items/s, not {} (a service time is no whole number of milliseconds)",
                latency_bound(&w)
            );
        }
    }

    #[test]
    fn fewer_items_than_connections_leave_connections_idle() {
        let few = Workload {
            items: 10,
            conns: 50,
            ..race_at_2ms()
        };
        assert!(
            close(latency_bound(&few), 2_500.0),
            "10 items keep only 10 of 50 connections busy: 10 / 4 ms = 2,500 items/s, not {}",
            latency_bound(&few)
        );
    }

    #[test]
    fn every_core_counts() {
        // Whole milliseconds, so that only the cores are in question.
        let four = Machine {
            cores: 4.0,
            cpu_per_item: Duration::from_millis(2),
        };
        assert!(
            close(cpu_bound(&four), 2_000.0),
            "4 cores give 4 CPU-seconds a second: 4 / 2 ms = 2,000 items/s, not {}",
            cpu_bound(&four)
        );
    }

    #[test]
    fn a_cpu_time_under_a_millisecond_counts_in_full() {
        // One core, so that only the unit is in question.
        let one = Machine {
            cores: 1.0,
            cpu_per_item: Duration::from_micros(60),
        };
        assert!(
            close(cpu_bound(&one), 1.0 / 60e-6),
            "1 core over 60 µs per item: 16,667 items/s (count the CPU time in seconds, with \
             its fraction, not in whole milliseconds), not {}",
            cpu_bound(&one)
        );
    }

    #[test]
    fn zero_latency_leaves_only_the_machine() {
        let instant = Workload {
            service: Duration::ZERO,
            ..race_at_2ms()
        };
        assert_eq!(
            latency_bound(&instant),
            f64::INFINITY,
            "a server that answers at once sets no latency bound"
        );
        let expected = 2.0 / 60e-6;
        assert!(
            close(cpu_bound(&two_cores()), expected),
            "2 cores over 60 µs per item: {expected:.0} items/s, not {}",
            cpu_bound(&two_cores())
        );
        let (items_per_s, bound) = ceiling(&instant, &two_cores());
        assert_eq!(
            bound,
            Bound::Cpu,
            "with no latency, the machine is the limit"
        );
        assert!(
            close(items_per_s, expected),
            "the ceiling should be the CPU bound"
        );
    }

    #[test]
    fn at_two_milliseconds_the_server_is_the_limit() {
        let (items_per_s, bound) = ceiling(&race_at_2ms(), &two_cores());
        assert_eq!(
            bound,
            Bound::Latency,
            "12,500 items/s from Little's law is below the machine's 33,333: latency is the limit"
        );
        assert!(
            close(items_per_s, 12_500.0),
            "the ceiling should be the lower bound, 12,500 items/s, not {items_per_s}"
        );
    }

    #[test]
    fn a_tie_is_the_latency_bound() {
        // 2 items/s either way (numbers exact in binary): one in flight,
        // two phases of 250 ms; one core, 500 ms of CPU per item.
        let workload = Workload {
            items: 10,
            conns: 1,
            phases: 2,
            service: Duration::from_millis(250),
        };
        let machine = Machine {
            cores: 1.0,
            cpu_per_item: Duration::from_millis(500),
        };
        let (items_per_s, bound) = ceiling(&workload, &machine);
        assert_eq!(
            bound,
            Bound::Latency,
            "when the two bounds are equal, the ceiling should be the latency bound"
        );
        assert!(
            close(items_per_s, 2.0),
            "the ceiling should be 2 items/s, not {items_per_s}"
        );
    }

    #[test]
    fn a_real_run_of_stage_1_does_not_beat_its_ceiling() -> Outcome {
        let settings = Settings {
            items: 20,
            conns: 1,
            latency: LatencyModel::Fixed(Duration::from_millis(5)),
            ..Settings::default()
        };
        let run = execute(&sync::Blocking::default(), &settings)?;
        let workload = Workload {
            items: 20,
            conns: 1,
            phases: 2,
            // The service time the server really applied, slightly over 5 ms.
            service: Duration::from_secs_f64(run.report.mean_service_ms / 1e3),
        };
        let bound = latency_bound(&workload);
        let measured = run.report.throughput;
        assert!(
            measured <= bound * 1.01,
            "{measured:.1} items/s beat the law's {bound:.1}"
        );
        assert!(
            measured >= bound * 0.5,
            "{measured:.1} items/s is far below {bound:.1}: is the bound right?"
        );
        Ok(())
    }
}
