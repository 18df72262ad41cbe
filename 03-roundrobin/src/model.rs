//! The loops in virtual time: a run predicted instead of measured.
//!
//! Round-robin never looks at the clock: which wrapper it visits, and
//! whether that wrapper is free afterwards, depends only on the replies, not
//! on when they arrive. So the whole run (which item goes to which wrapper,
//! and when each `dispose` returns) can be computed from the server's
//! latency and fault models alone, which are deterministic per
//! `(seed, item, phase)`.
//!
//! [`VirtualFleet`] is a [`Fleet`] whose `dispose` does not read a socket:
//! it moves a virtual clock forward to the moment the reply would arrive.
//! Run the real loops (`loops::run`) on it and the clock at the end is the
//! predicted elapsed time, the assignment of items to wrappers is the one
//! the real run makes (a test checks this against a real run), and
//! [`VirtualFleet::stalled`] measures head-of-line blocking: the time the
//! loop spent waiting for one wrapper while another's reply was already in.
//!
//! # What the model leaves out
//!
//! Everything that is not waiting for the server: system calls, recording
//! in the database, reconnecting, a trickled reply's pauses, and the
//! server's own timer overshoot. The gap between prediction and measurement
//! is exactly that overhead.
//!
//! Not here: a model of stage 4 (the chapter 3 exercise `ch03-soonest`
//! writes a loop that disposes the wrapper whose reply is due first).

use std::time::Duration;

use testbed::cli::Settings;
use testbed::faults::FaultPlan;
use testbed::latency::LatencyModel;
use testbed::outcome::ErrorKind;
use testbed::protocol::{ItemId, Phase, Phases};
use testbed::workload::Item;

use crate::fleet::{Fleet, LoopError};
use crate::loops::{Dispatch, Drain};
use crate::wrapper::{Busy, WrapperId};

/// The reply of a `hang` fault never comes: it is "due" at the end of time,
/// and a `dispose` gives up on it after the read timeout.
pub const NEVER: Duration = Duration::MAX;

/// What the server does, as far as timing is concerned: the `--latency`,
/// `--faults`, `--seed`, `--phases` and `--read-timeout` of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// Service time per request line.
    pub latency: LatencyModel,
    /// Which request lines fail, and how.
    pub faults: FaultPlan,
    /// The seed both are drawn with.
    pub seed: u64,
    /// One or two phases per item.
    pub phases: Phases,
    /// How long a `dispose` waits for a reply that never comes.
    pub read_timeout: Option<Duration>,
}

impl Model {
    /// The model of the run these settings describe.
    pub fn from_settings(settings: &Settings) -> Model {
        Model {
            latency: settings.latency,
            faults: settings.faults,
            seed: settings.seed,
            phases: settings.phases,
            read_timeout: settings.read_timeout,
        }
    }

    /// Runs `dispatch` and `drain` over `conns` virtual wrappers and
    /// returns the fleet at the end: its clock, its rows, its stalls.
    pub fn predict(
        &self,
        conns: usize,
        items: &[Item],
        dispatch: Dispatch,
        drain: Drain,
    ) -> Result<VirtualFleet, LoopError> {
        let mut fleet = VirtualFleet::new(*self, conns);
        crate::loops::run(&mut fleet, items, dispatch, drain)?;
        Ok(fleet)
    }
}

/// One item's outcome in virtual time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualRow {
    /// The item.
    pub id: ItemId,
    /// The wrapper it ran on.
    pub wrapper: WrapperId,
    /// When it was started, since the beginning of the run.
    pub started: Duration,
    /// When its last `dispose` returned.
    pub finished: Duration,
    /// `None` for success, or how the server made it fail.
    pub failure: Option<ErrorKind>,
}

/// A request pending on a virtual wrapper.
#[derive(Debug, Clone, Copy)]
struct Pending {
    id: ItemId,
    phase: Phase,
    started: Duration,
    /// When the reply to `phase` arrives ([`NEVER`] for a hang).
    due: Duration,
}

/// Wrappers and a database in virtual time: a [`Fleet`] whose replies
/// arrive when the latency model says, without a socket in sight.
#[derive(Debug, Clone)]
pub struct VirtualFleet {
    model: Model,
    clock: Duration,
    wrappers: Vec<Option<Pending>>,
    rows: Vec<VirtualRow>,
    stalled: Duration,
}

impl VirtualFleet {
    /// `conns` idle wrappers at time zero.
    pub fn new(model: Model, conns: usize) -> VirtualFleet {
        VirtualFleet {
            model,
            clock: Duration::ZERO,
            wrappers: vec![None; conns],
            rows: Vec::new(),
            stalled: Duration::ZERO,
        }
    }

    /// The virtual time now: at the end of a run, its predicted length.
    pub fn clock(&self) -> Duration {
        self.clock
    }

    /// When wrapper `w`'s pending reply arrives; `None` if it is idle.
    pub fn due(&self, w: WrapperId) -> Option<Duration> {
        self.wrappers[w.0].map(|pending| pending.due)
    }

    /// Head-of-line blocking, summed over the run: time spent waiting for
    /// one wrapper's reply while another wrapper's reply had already
    /// arrived and sat unread.
    pub fn stalled(&self) -> Duration {
        self.stalled
    }

    /// The finished items, in the order they finished.
    pub fn rows(&self) -> &[VirtualRow] {
        &self.rows
    }

    /// When the reply to `phase` of `id`, sent now, arrives.
    fn due_from_now(&self, id: ItemId, phase: Phase) -> Duration {
        let model = &self.model;
        match model.faults.decide(model.seed, id, phase) {
            Some(fault) if fault.needs_read_timeout() => NEVER,
            _ => self.clock + model.latency.sample(model.seed, id, phase),
        }
    }

    /// The earliest reply due on a wrapper other than `w`.
    fn earliest_other(&self, w: WrapperId) -> Option<Duration> {
        (0..self.wrappers.len())
            .filter(|&v| v != w.0)
            .filter_map(|v| self.wrappers[v].map(|pending| pending.due))
            .min()
    }
}

impl Fleet for VirtualFleet {
    fn count(&self) -> usize {
        self.wrappers.len()
    }

    fn is_working(&self, w: WrapperId) -> bool {
        self.wrappers[w.0].is_some()
    }

    fn dispose(&mut self, w: WrapperId) -> Result<(), LoopError> {
        let Some(pending) = self.wrappers[w.0].take() else {
            return Ok(());
        };
        // A blocking read returns when the reply is in, or gives up after
        // the read timeout, counted from when the read began: now.
        let returns_at = if pending.due == NEVER {
            self.clock
                .saturating_add(self.model.read_timeout.unwrap_or(NEVER))
        } else {
            pending.due.max(self.clock)
        };
        if let Some(other) = self.earliest_other(w)
            && other < returns_at
        {
            self.stalled += returns_at - other.max(self.clock);
        }
        self.clock = returns_at;

        let model = &self.model;
        let fault = model.faults.decide(model.seed, pending.id, pending.phase);
        let failure = fault.and_then(|fault| fault.error_kind());
        if pending.phase == Phase::Head && failure.is_none() {
            // `OK`: the `BODY` leaves now; its reply comes one service
            // time later.
            self.wrappers[w.0] = Some(Pending {
                phase: Phase::Body,
                due: self.due_from_now(pending.id, Phase::Body),
                ..pending
            });
        } else {
            self.rows.push(VirtualRow {
                id: pending.id,
                wrapper: w,
                started: pending.started,
                finished: self.clock,
                failure,
            });
        }
        Ok(())
    }

    fn start(&mut self, w: WrapperId, item: &Item) -> Result<(), LoopError> {
        if self.is_working(w) {
            return Err(Busy(w).into());
        }
        let phase = match self.model.phases {
            Phases::One => Phase::Get,
            Phases::Two => Phase::Head,
        };
        self.wrappers[w.0] = Some(Pending {
            id: item.id,
            phase,
            started: self.clock,
            due: self.due_from_now(item.id, phase),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use testbed::workload::items;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn model(latency: &str, phases: Phases) -> Model {
        Model {
            latency: latency.parse().expect("a valid latency spec"),
            faults: FaultPlan::none(),
            seed: 1,
            phases,
            read_timeout: None,
        }
    }

    #[test]
    fn constant_latency_moves_in_waves() {
        // The source article's reasoning: N requests leave at once, the loop blocks
        // one service time per phase, then the next N leave. 100 items on
        // 10 wrappers is 10 waves.
        let work = items(100, 1);
        for (phases, dispatch, per_wave) in [
            (Phases::One, Dispatch::SinglePhase, ms(10)),
            (Phases::Two, Dispatch::MultiPhase, ms(20)),
        ] {
            let fleet = model("10ms", phases)
                .predict(10, &work, dispatch, Drain::RoundRobin)
                .expect("the loop runs");
            assert_eq!(fleet.clock(), per_wave * 10, "{phases:?}");
            assert_eq!(fleet.stalled(), Duration::ZERO, "even replies never stall");
            assert_eq!(fleet.rows().len(), 100);
        }
    }

    #[test]
    fn the_single_phase_loop_refuses_two_phase_requests() {
        let error = model("1ms", Phases::Two)
            .predict(3, &items(10, 1), Dispatch::SinglePhase, Drain::RoundRobin)
            .expect_err("the second visit finds wrapper 0 still working");
        assert!(matches!(error, LoopError::Busy(Busy(WrapperId(0)))));
    }

    #[test]
    fn the_articles_drain_costs_one_reply_per_wrapper() {
        // Exactly one wave: every wrapper is at its first phase when the
        // drain begins. Round-robin sends every BODY in its first turn; the
        // source article's drain sends wrapper k's BODY after wrapper k-1's answer.
        let work = items(10, 1);
        let clock = |drain| {
            model("10ms", Phases::Two)
                .predict(10, &work, Dispatch::MultiPhase, drain)
                .expect("the loop runs")
                .clock()
        };
        assert_eq!(clock(Drain::RoundRobin), ms(20));
        assert_eq!(clock(Drain::InOrder), ms(10) + ms(10) * 10);
    }

    #[test]
    fn uneven_latency_stalls_the_loop() {
        let work = items(400, 1);
        let fleet = model("bimodal:0.1:50ms:2ms", Phases::Two)
            .predict(20, &work, Dispatch::MultiPhase, Drain::RoundRobin)
            .expect("the loop runs");
        assert_eq!(fleet.rows().len(), 400);
        // Most of the run is spent waiting on one reply while others wait
        // to be read.
        assert!(fleet.stalled() > fleet.clock() / 2, "{fleet:?}");
    }

    #[test]
    fn faults_end_requests_where_the_server_says() {
        let model = Model {
            faults: "nak=0.2,ko=0.2,hang=0.1"
                .parse()
                .expect("a valid fault spec"),
            read_timeout: Some(ms(50)),
            ..model("1ms", Phases::Two)
        };
        let work = items(200, 1);
        let fleet = model
            .predict(5, &work, Dispatch::MultiPhase, Drain::RoundRobin)
            .expect("the loop runs");
        for row in fleet.rows() {
            let expected = model.faults.expected(model.seed, row.id, Phases::Two);
            assert_eq!(row.failure, expected, "item {}", row.id);
        }
        let mut ids: Vec<u64> = fleet.rows().iter().map(|row| row.id.0).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..200).collect::<Vec<_>>(), "each item once");
    }
}
