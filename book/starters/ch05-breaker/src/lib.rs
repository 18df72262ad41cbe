//! Chapter 5, exercise 2: a circuit breaker in front of the connects.
//!
//! Stage 5 treats a server that is down politely: it probes with backoff,
//! and a queued checkout fails only when its checkout timeout is up. That
//! politeness has a price: with the server gone for a minute, *every*
//! checkout waits its full timeout before failing, and callers pile up
//! behind it. A circuit breaker (Michael Nygard, "Release It!", 2007) turns
//! a run of failures into an immediate answer:
//!
//! - **closed** (normal): connects go ahead; `threshold` refusals in a row
//!   open it;
//! - **open**: no connect at all, and checkouts fail at once
//!   ([`Breaker::fail_fast`]), for a backoff delay (stage 5's
//!   [`Backoff`], longer after each trip);
//! - **half-open**: when the delay is over, *one* connect goes through as a
//!   probe; its success closes the breaker, its refusal opens it again.
//!
//! Every method takes `now` instead of reading the clock, so the tests run
//! on a fake clock, in microseconds, whatever the machine's load.
//!
//! Write [`Breaker::allow`] and [`Breaker::refused`].
//!
//! Two refusals open it; once its delay (at most the 1 s cap) is over, one
//! probe goes, and its success closes it:
//!
//! ```
//! use std::time::{Duration, Instant};
//! use ch05_breaker::{Breaker, State};
//! use pool::backoff::Backoff;
//!
//! let backoff = Backoff { base: Duration::from_millis(100), cap: Duration::from_secs(1) };
//! let mut breaker = Breaker::new(2, backoff, 1);
//! let now = Instant::now();
//! for _ in 0..2 {
//!     assert!(breaker.allow(now), "closed: connects go ahead");
//!     breaker.refused(now);
//! }
//! assert!(breaker.fail_fast(now) && !breaker.allow(now), "open after two refusals: checkouts fail at once, no connect");
//! let later = now + Duration::from_secs(1);
//! assert!(breaker.allow(later), "the probe");
//! assert!(!breaker.allow(later), "nothing else while the probe is out");
//! breaker.succeeded();
//! assert_eq!(breaker.state(), State::Closed { refusals: 0 }, "the probe's success closes it");
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch05-breaker");

use std::time::{Duration, Instant};

use pool::backoff::Backoff;

/// Where the breaker stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Connects go ahead; this many refusals in a row so far.
    Closed {
        /// Consecutive refusals.
        refusals: u32,
    },
    /// No connects until `until`.
    Open {
        /// When the probe may go.
        until: Instant,
    },
    /// One probe is out; nothing else goes until it answers.
    HalfOpen,
}

/// A circuit breaker for connects.
#[derive(Debug, Clone)]
pub struct Breaker {
    state: State,
    /// Refusals in a row that open it.
    threshold: u32,
    /// How long it stays open: `backoff.delay(trips, seed)`.
    backoff: Backoff,
    seed: u64,
    /// Times it opened since it was last closed by a success.
    trips: u32,
}

impl Breaker {
    /// A closed breaker that opens after `threshold` refusals in a row.
    pub fn new(threshold: u32, backoff: Backoff, seed: u64) -> Breaker {
        Breaker {
            state: State::Closed { refusals: 0 },
            threshold: threshold.max(1),
            backoff,
            seed,
            trips: 0,
        }
    }

    /// Where it stands.
    pub fn state(&self) -> State {
        self.state
    }

    /// Should a checkout fail at once (with `refused`) instead of queueing?
    /// Only while open: the server is known to be down.
    pub fn fail_fast(&self, now: Instant) -> bool {
        matches!(self.state, State::Open { until } if now < until)
    }

    /// A connect succeeded: the server is back.
    pub fn succeeded(&mut self) {
        self.state = State::Closed { refusals: 0 };
        self.trips = 0;
    }

    // ANCHOR: exercise
    /// May a connect start at `now`? Closed: yes. Open: not before its
    /// time; from then on it is half-open and this one connect is the
    /// probe. Half-open: no, the probe is still out.
    pub fn allow(&mut self, now: Instant) -> bool {
        // TODO: in which states may a connect go out, and what becomes of an open breaker whose time is up?
        todo!("in which states may a connect go out, and what becomes of an open breaker whose time is up?")
    }

    /// A connect was refused at `now`. Closed: one more refusal, and at
    /// `threshold` it opens. Half-open: the probe failed, it opens again.
    /// Opening counts a trip and stays open for `backoff.delay(trips,
    /// seed)`.
    pub fn refused(&mut self, now: Instant) {
        // TODO: which refusals count towards the threshold, and what does a failed probe do to the next wait?
        todo!("which refusals count towards the threshold, and what does a failed probe do to the next wait?")
    }
    // ANCHOR_END: exercise
}

/// A model of a dead server: one checkout arrives every `every`, for
/// `length`; each either fails fast, or tries a connect (which is refused)
/// if the breaker allows one, or would queue. Returns (connects tried,
/// checkouts failed fast).
pub fn dead_server(breaker: &mut Breaker, every: Duration, length: Duration) -> (u32, u32) {
    let start = Instant::now();
    let (mut connects, mut fast) = (0, 0);
    let mut t = Duration::ZERO;
    while t < length {
        let now = start + t;
        if breaker.fail_fast(now) {
            fast += 1;
        } else if breaker.allow(now) {
            connects += 1;
            breaker.refused(now);
        }
        t += every;
    }
    (connects, fast)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn breaker() -> Breaker {
        let backoff = Backoff {
            base: 100 * MS,
            cap: 2_000 * MS,
        };
        Breaker::new(3, backoff, 1)
    }

    fn open_until(breaker: &Breaker) -> Instant {
        match breaker.state() {
            State::Open { until } => until,
            other => panic!("expected open, found {other:?}"),
        }
    }

    #[test]
    fn it_opens_after_threshold_refusals_in_a_row() {
        let t0 = Instant::now();
        let mut b = breaker();
        b.refused(t0);
        b.refused(t0);
        assert_eq!(
            b.state(),
            State::Closed { refusals: 2 },
            "two refusals of three should leave it closed, counting"
        );
        assert!(
            b.allow(t0) && !b.fail_fast(t0),
            "closed: connects go ahead and checkouts queue"
        );
        b.refused(t0);
        let until = open_until(&b);
        assert!(
            until > t0 && until <= t0 + 100 * MS,
            "the first trip should open it for the backoff's first delay, at most 100 ms"
        );
        assert!(!b.allow(t0), "no connect while open");
        assert!(b.fail_fast(t0), "checkouts fail at once while open");
    }

    #[test]
    fn a_success_resets_the_count() {
        let t0 = Instant::now();
        let mut b = breaker();
        b.refused(t0);
        b.refused(t0);
        b.succeeded();
        b.refused(t0);
        b.refused(t0);
        assert_eq!(
            b.state(),
            State::Closed { refusals: 2 },
            "a success should reset the count: two refusals after it are not three in a row"
        );
    }

    #[test]
    fn when_its_time_comes_one_probe_goes_through() {
        let t0 = Instant::now();
        let mut b = breaker();
        for _ in 0..3 {
            b.refused(t0);
        }
        let until = open_until(&b);
        assert!(
            !b.allow(until - Duration::from_micros(1)),
            "no connect before the open breaker's time is up"
        );
        assert!(
            b.allow(until),
            "when its time is up, one connect should go as the probe"
        );
        assert_eq!(
            b.state(),
            State::HalfOpen,
            "the probe's connect should leave it half-open"
        );
        assert!(
            !b.allow(until),
            "half-open: only one probe at a time, no other connect"
        );
        assert!(
            !b.fail_fast(until),
            "half-open: checkouts wait for the probe"
        );
    }

    #[test]
    fn a_refused_probe_opens_it_for_longer_and_a_good_one_closes_it() {
        let t0 = Instant::now();
        let mut b = breaker();
        for _ in 0..3 {
            b.refused(t0);
        }
        let first = open_until(&b) - t0;
        let probe = open_until(&b);
        assert!(
            b.allow(probe),
            "the first probe should go when its time is up"
        );
        b.refused(probe);
        let second = open_until(&b) - probe;
        assert!(
            second > first,
            "a failed probe should open it for longer (a second trip backs off): {second:?} after {first:?}"
        );
        let probe = open_until(&b);
        assert!(
            b.allow(probe),
            "the second probe should go when its time is up"
        );
        b.succeeded();
        assert_eq!(
            b.state(),
            State::Closed { refusals: 0 },
            "a good probe should close it"
        );
        assert!(b.allow(probe), "closed again: connects go ahead");
    }

    #[test]
    fn a_refusal_of_a_connect_started_before_it_opened_changes_nothing() {
        let t0 = Instant::now();
        let mut b = breaker();
        for _ in 0..3 {
            b.refused(t0);
        }
        let until = open_until(&b);
        b.refused(t0 + MS);
        assert_eq!(
            open_until(&b),
            until,
            "a late refusal, of a connect started before it opened, should not open it again"
        );
    }

    #[test]
    fn a_dead_server_costs_a_few_probes_and_most_checkouts_fail_at_once() {
        // A checkout every millisecond for ten seconds, against a server
        // that never answers: without a breaker, each would wait its whole
        // checkout timeout.
        let (connects, fast) = dead_server(&mut breaker(), MS, 10_000 * MS);
        // Three to open it, then one probe per backoff delay (0.1 s,
        // doubling to 2 s): a dozen or so, instead of ten thousand.
        assert!(
            connects <= 16,
            "a dead server should cost a few probes, not {connects} connects"
        );
        assert!(
            fast >= 9_500,
            "most checkouts should fail at once while open; only {fast} of 10,000 did"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use testbed::testing::proptest_config;

        /// What happens next to the breaker, after the fake clock moved.
        #[derive(Debug, Clone, Copy)]
        enum Step {
            /// A checkout asks whether a connect may start.
            Allow,
            /// A connect was refused.
            Refused,
            /// A connect succeeded.
            Succeeded,
        }

        /// The model: the three states of the chapter, written out.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Model {
            Closed(u32),
            Open(Instant),
            HalfOpen,
        }

        fn step() -> impl Strategy<Value = (Step, u64)> {
            (
                prop_oneof![
                    3 => Just(Step::Allow),
                    3 => Just(Step::Refused),
                    1 => Just(Step::Succeeded),
                ],
                0u64..400,
            )
        }

        proptest! {
            #![proptest_config(proptest_config(64))]

            #[test]
            fn the_breaker_follows_its_state_machine(
                threshold in 1u32..5,
                seed in any::<u64>(),
                steps in proptest::collection::vec(step(), 1..60),
            ) {
                let backoff = Backoff {
                    base: Duration::from_millis(100),
                    cap: Duration::from_secs(1),
                };
                let mut breaker = Breaker::new(threshold, backoff, seed);
                let (mut model, mut trips) = (Model::Closed(0), 0u32);
                let mut now = Instant::now();
                let mut done = Vec::new();
                for (step, ms) in steps {
                    now += Duration::from_millis(ms);
                    done.push(format!("+{ms} ms {step:?}"));
                    match step {
                        Step::Allow => {
                            let allowed = match model {
                                Model::Closed(_) => true,
                                Model::Open(until) if now >= until => {
                                    model = Model::HalfOpen;
                                    true
                                }
                                Model::Open(_) | Model::HalfOpen => false,
                            };
                            prop_assert_eq!(
                                breaker.allow(now),
                                allowed,
                                "threshold {}, after {:?}: allow should say {}",
                                threshold, done, allowed
                            );
                        }
                        Step::Refused => {
                            let opens = match model {
                                Model::Closed(n) if n + 1 < threshold => {
                                    model = Model::Closed(n + 1);
                                    false
                                }
                                Model::Closed(_) | Model::HalfOpen => true,
                                Model::Open(_) => false,
                            };
                            if opens {
                                trips += 1;
                                model = Model::Open(now + backoff.delay(trips, seed));
                            }
                            breaker.refused(now);
                        }
                        Step::Succeeded => {
                            (model, trips) = (Model::Closed(0), 0);
                            breaker.succeeded();
                        }
                    }
                    let expected = match model {
                        Model::Closed(refusals) => State::Closed { refusals },
                        Model::Open(until) => State::Open { until },
                        Model::HalfOpen => State::HalfOpen,
                    };
                    prop_assert_eq!(
                        breaker.state(),
                        expected,
                        "threshold {}, after {:?}: the breaker should be {:?} (trip {} opens for backoff.delay({}, seed))",
                        threshold, done, expected, trips, trips
                    );
                }
            }
        }
    }
}
