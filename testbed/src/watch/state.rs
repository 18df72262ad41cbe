//! What the live view knows: the run as a sequence of samples, and the
//! numbers drawn from them. No terminal here, and no clock: each
//! [`Sample`] says when it was taken, so a test can replay a recorded
//! sequence and know exactly what the view must show.
//!
//! Not here: taking the samples (`watch.rs`), drawing them (`draw.rs`).

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use crate::cli::Settings;
use crate::faults::Fault;
use crate::protocol::{ItemId, Phase, Phases};
use crate::stage::Stage;

/// How far back "now" reaches when the view measures throughput: long
/// enough to smooth the ticks, short enough to follow a stall within a
/// second.
pub const WINDOW: Duration = Duration::from_secs(1);

/// How many throughput readings the sparkline keeps (one per sample): wider
/// than any terminal's panel.
const HISTORY: usize = 400;

/// One wake-up of a stage's event loop, as its recording reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wake {
    /// When the loop woke, since the run's epoch.
    pub at: Duration,
    /// How long it had slept in its wait.
    pub slept: Duration,
    /// How many connections were ready.
    pub ready: u32,
    /// How many timers had fired.
    pub timers: u32,
    /// What it did then, in a few words.
    pub then: String,
}

/// What one connection is doing, as the server sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnNow {
    /// The client's port: the connection's name while it is open.
    pub port: u16,
    /// The item of its last request line.
    pub item: ItemId,
    /// That line's phase.
    pub phase: Phase,
    /// How long ago the line came, or its reply went.
    pub since: Duration,
    /// True while the server serves the line; false once it replied (the
    /// client now has to read the reply and send the next line).
    pub in_service: bool,
    /// The fault the server injected when the service time ended.
    pub fault: Option<Fault>,
}

/// Everything the view takes in at one instant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sample {
    /// When, since the view started.
    pub at: Duration,
    /// Items recorded in the database.
    pub recorded: u64,
    /// Of which failed.
    pub failed: u64,
    /// Items the server started (their first request line arrived).
    pub started: u64,
    /// The server's mean service time so far, if it served anything.
    pub service: Option<Duration>,
    /// What each open connection is doing.
    pub connections: Vec<ConnNow>,
    /// The loop's last wake-ups, newest last; `None` when no loop records
    /// them.
    pub wakes: Option<Vec<Wake>>,
}

/// The fixed facts of the run the view shows.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The stage's name.
    pub stage: &'static str,
    /// Items in the run.
    pub items: u64,
    /// One or two phases per item.
    pub phases: Phases,
    /// The server runs in another process (`--server`): the view cannot
    /// see its connections, nor how many items it started.
    pub server_elsewhere: bool,
    /// The nominal mean service time (`--latency`), until the server has
    /// measured its own.
    pub latency: Duration,
}

impl Setup {
    /// The facts of `stage` run with `settings`.
    pub fn of(stage: &dyn Stage, settings: &Settings) -> Setup {
        Setup {
            stage: stage.name(),
            items: settings.items as u64,
            phases: settings.phases,
            server_elsewhere: settings.server.is_some(),
            latency: settings.latency.mean(),
        }
    }
}

/// The view's state: the last sample, and what the earlier ones add.
///
/// # Examples
///
/// Two samples a second apart make a throughput, and the view draws it on
/// any ratatui backend (a test's `TestBackend` here):
///
/// ```
/// use std::time::Duration;
///
/// use ratatui::{Terminal, backend::TestBackend};
/// use testbed::protocol::Phases;
/// use testbed::watch::{App, Sample, Setup, draw};
///
/// let mut app = App::new(Setup {
///     stage: "select",
///     items: 200,
///     phases: Phases::Two,
///     server_elsewhere: false,
///     latency: Duration::from_millis(10),
/// });
/// app.observe(Sample::default());
/// app.observe(Sample {
///     at: Duration::from_secs(1),
///     recorded: 90,
///     failed: 3,
///     started: 100,
///     ..Sample::default()
/// });
/// assert_eq!((app.throughput(), app.in_flight()), (90.0, 10));
///
/// let mut terminal = Terminal::new(TestBackend::new(100, 20))?;
/// terminal.draw(|frame| draw(frame, &app))?;
/// let row: String = (0..100).map(|x| terminal.backend().buffer()[(x, 1)].symbol()).collect();
/// assert!(row.starts_with("ok 87   failed 3   in flight 10   left 110"), "{row}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct App {
    setup: Setup,
    last: Sample,
    /// Each connection's lane number, in order of first appearance: a
    /// stable name a reader can follow (ports are five-digit noise).
    lanes: HashMap<u16, usize>,
    /// The most connections open at once: the concurrency Little's law
    /// divides by.
    peak: usize,
    /// (when, recorded) for the last [`WINDOW`] and a bit.
    recent: VecDeque<(Duration, u64)>,
    /// Items per second at each sample, for the sparkline.
    rates: VecDeque<u64>,
    /// The watchdog's last word, and the count it was said at: it stands
    /// until the run records again.
    stall: Option<(String, u64)>,
}

impl App {
    /// A view of a run that has not started.
    pub fn new(setup: Setup) -> App {
        App {
            setup,
            last: Sample::default(),
            lanes: HashMap::new(),
            peak: 0,
            recent: VecDeque::new(),
            rates: VecDeque::new(),
            stall: None,
        }
    }

    /// Takes in one sample.
    pub fn observe(&mut self, sample: Sample) {
        for conn in &sample.connections {
            let next = self.lanes.len();
            self.lanes.entry(conn.port).or_insert(next);
        }
        self.peak = self.peak.max(sample.connections.len());
        self.recent.push_back((sample.at, sample.recorded));
        while self.recent.len() > 2 && self.recent[1].0 + WINDOW <= sample.at {
            self.recent.pop_front();
        }
        if self.rates.len() == HISTORY {
            self.rates.pop_front();
        }
        if let Some((_, at)) = &self.stall
            && *at != sample.recorded
        {
            self.stall = None;
        }
        self.last = sample;
        self.rates.push_back(self.throughput().round() as u64);
    }

    /// The watchdog says the run has stalled.
    pub fn stall(&mut self, line: &str) {
        self.stall = Some((line.to_owned(), self.last.recorded));
    }

    /// The run's facts.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The last sample.
    pub fn last(&self) -> &Sample {
        &self.last
    }

    /// Items recorded without failure.
    pub fn ok(&self) -> u64 {
        self.last.recorded - self.last.failed.min(self.last.recorded)
    }

    /// Items started and not yet recorded.
    pub fn in_flight(&self) -> u64 {
        self.last.started.saturating_sub(self.last.recorded)
    }

    /// Items not yet recorded.
    pub fn left(&self) -> u64 {
        self.setup.items.saturating_sub(self.last.recorded)
    }

    /// Items recorded per second over the last [`WINDOW`] (or since the
    /// start, before a window has passed).
    pub fn throughput(&self) -> f64 {
        match (self.recent.front(), self.recent.back()) {
            (Some(&(t0, n0)), Some(&(t1, n1))) if t1 > t0 => {
                (n1 - n0.min(n1)) as f64 / (t1 - t0).as_secs_f64()
            }
            _ => 0.0,
        }
    }

    /// Items recorded per second since the start.
    pub fn mean_throughput(&self) -> f64 {
        let secs = self.last.at.as_secs_f64();
        if secs > 0.0 {
            self.last.recorded as f64 / secs
        } else {
            0.0
        }
    }

    /// The service time the ideal uses: the server's measured mean, or the
    /// nominal one until it has one.
    pub fn service(&self) -> Duration {
        self.last.service.unwrap_or(self.setup.latency)
    }

    /// The most connections seen open at once.
    pub fn concurrency(&self) -> usize {
        self.peak
    }

    /// Little's law: with `concurrency` requests in flight, each taking
    /// `phases` service times, at most this many items finish per second.
    /// `None` before any connection or with zero latency (no bound).
    pub fn ideal(&self) -> Option<f64> {
        let per_item = self.service().as_secs_f64() * f64::from(self.setup.phases.count());
        (self.peak > 0 && per_item > 0.0).then(|| self.peak as f64 / per_item)
    }

    /// Throughput over the ideal, when there is an ideal.
    pub fn efficiency(&self) -> Option<f64> {
        self.ideal().map(|ideal| self.throughput() / ideal)
    }

    /// The throughput readings, oldest first.
    pub fn rates(&self) -> impl Iterator<Item = u64> + '_ {
        self.rates.iter().copied()
    }

    /// The open connections with their lane numbers, by lane.
    pub fn connections(&self) -> Vec<(usize, ConnNow)> {
        let mut lanes: Vec<_> = self
            .last
            .connections
            .iter()
            .map(|conn| (self.lanes[&conn.port], *conn))
            .collect();
        lanes.sort_by_key(|(lane, _)| *lane);
        lanes
    }

    /// The watchdog's standing word, if the run is stalled.
    pub fn stalled(&self) -> Option<&str> {
        self.stall.as_ref().map(|(line, _)| line.as_str())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A two-phase run of 1000 items at 10 ms (the view's tests share it).
    pub(in crate::watch) fn setup() -> Setup {
        Setup {
            stage: "pool",
            items: 1000,
            phases: Phases::Two,
            server_elsewhere: false,
            latency: Duration::from_millis(10),
        }
    }

    fn conn(port: u16, item: u64) -> ConnNow {
        ConnNow {
            port,
            item: ItemId(item),
            phase: Phase::Head,
            since: Duration::ZERO,
            in_service: true,
            fault: None,
        }
    }

    fn at(ms: u64, recorded: u64, connections: Vec<ConnNow>) -> Sample {
        Sample {
            at: Duration::from_millis(ms),
            recorded,
            started: recorded + connections.len() as u64,
            connections,
            ..Sample::default()
        }
    }

    #[test]
    fn throughput_is_measured_over_the_last_window_against_littles_law() {
        let mut app = App::new(setup());
        app.observe(at(0, 0, vec![conn(5001, 0), conn(5002, 1)]));
        app.observe(at(500, 50, vec![conn(5001, 50), conn(5002, 51)]));
        app.observe(at(1000, 100, vec![conn(5001, 100), conn(5002, 101)]));
        // The window slides: from 1000 ms to 2000 ms, 150 items.
        app.observe(at(2000, 250, vec![conn(5001, 250), conn(5002, 251)]));
        assert_eq!(app.throughput(), 150.0);
        assert_eq!(app.mean_throughput(), 125.0);
        // 2 connections / (2 phases x 10 ms) = 100 items/s.
        assert_eq!(app.ideal(), Some(100.0));
        assert_eq!(app.in_flight(), 2);
        assert_eq!(app.rates().collect::<Vec<_>>(), [0, 100, 100, 150]);
    }

    #[test]
    fn lanes_keep_their_numbers_and_a_stall_stands_until_the_run_records() {
        let mut app = App::new(setup());
        app.observe(at(0, 0, vec![conn(6000, 0), conn(5000, 1)]));
        app.observe(at(100, 1, vec![conn(5000, 2), conn(7000, 3)]));
        let lanes: Vec<_> = app
            .connections()
            .iter()
            .map(|(l, c)| (*l, c.port))
            .collect();
        assert_eq!(lanes, [(1, 5000), (2, 7000)]);
        app.stall("pool: nothing recorded for 10.00s");
        app.observe(at(200, 1, vec![]));
        assert!(app.stalled().is_some(), "still stalled");
        app.observe(at(300, 2, vec![]));
        assert_eq!(app.stalled(), None, "recording again");
    }
}
