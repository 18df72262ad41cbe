//! The timeline picture of a run: one lane per connection, one bar per item.
//!
//! A timeline is the fastest way to *see* a concurrency model. Stage 1 is a
//! single lane of back-to-back bars; stage 3's lanes stall behind one slow
//! reply while the others sit idle; stage 4's lanes stay full. The picture is
//! drawn from the results database (start and finish of every item, and its
//! lane), so it shows what happened, not what the stage claims.
//!
//! An outage window (`--outage`) is shaded behind the bars, so what a
//! stage does while its server is down, and how soon it recovers, is there
//! to see.
//!
//! # Two shades
//!
//! When the embedded server logged its replies (it does for `--timeline`,
//! see [`crate::server::ServedLine`]), each bar has two shades of its
//! colour: dark while the server was applying a service time to one of the
//! item's request lines, light for the rest, when the item was waiting on
//! the client (the request on its way, a reply waiting to be read, the
//! client recording the outcome). A loop that leaves replies unread shows
//! long light stretches; a loop that reads what is ready shows bars that are
//! nearly all dark. A server in its own process (02-fork's) keeps no such
//! log, and its bars have one shade.
//!
//! # Tasks
//!
//! An executor that recorded its tasks ([`crate::tasks::TaskTrace`],
//! [`Timeline::with_tasks`]) has them drawn under the lanes of its page and
//! as tracks of its trace export: which task held the thread, for how long,
//! and which wake caused each poll. The tasks are packed into rows
//! (`timeline/task_rows.rs`), so that short-lived tasks share one.
//!
//! # Several runs on one axis
//!
//! [`render_stack`] draws several runs one above the other on a shared time
//! axis, so that two models can be compared lane by lane at the same scale.
//! A stage binary writes the data of a run instead of a picture when the
//! `--timeline` path ends in `.json`; the `stack-timelines` binary draws
//! such files together.
//!
//! # Drawing
//!
//! The SVG is written by hand: a few thousand `<rect>`s need no plotting
//! library, and the output stays small and diffable. It is drawn 740 pixels
//! wide, the width of the book's text column, so its 12-pixel text is read
//! at 12 pixels there. Failures get their own colour per kind, and every bar
//! has a tooltip (`<title>`) with the item, its outcome and its durations,
//! up to a few thousand bars (beyond, a bar is too thin to point at).
//! Lanes shrink to fit, lane labels thin out so they never overlap, and bars
//! are separated by a hairline so 40 back-to-back requests in one lane
//! remain 40.
//!
//! # Layout
//!
//! This file holds the data of a timeline ([`Timeline`], what a `.json`
//! timeline holds); `timeline/draw.rs` lays out and draws the picture, and
//! `timeline/legend.rs` holds its colours and legend. The SVG pieces every
//! picture shares are in [`crate::svg`].

mod draw;
mod legend;
mod page;
mod task_rows;
#[cfg(test)]
mod tests;
mod trace;
mod trace_tasks;

use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::report::Report;
use crate::server::ServedLine;
use crate::store::{Row, Store, StoreError};
use crate::tasks::TaskTrace;
use crate::turns::LoopTurns;

pub use draw::render_stack;
pub use page::render_page;
pub use trace::render_trace;

/// Everything a timeline shows of one run, as plain data: what
/// `--timeline run.json` writes and `stack-timelines` reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timeline {
    /// What the run is called in a stack (the stage's name by default).
    pub label: String,
    /// The run's verified report.
    pub report: Report,
    /// One bar per stored item.
    pub bars: Vec<Bar>,
    /// The server's service times, if it logged them (else empty).
    pub service: Vec<Service>,
    /// The event loop's wake-ups, if the stage has a loop (`None`: it has
    /// none, as 01-sync and 02-fork).
    #[serde(default)]
    pub turns: Option<LoopTurns>,
    /// The executor's tasks, if it recorded them (`None`: no trace, and
    /// the page shows no tasks).
    #[serde(default)]
    pub tasks: Option<TaskTrace>,
}

/// One item's bar: from the stage starting on it to its outcome recorded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bar {
    /// The item's id.
    pub id: u64,
    /// The lane (connection, worker or fiber) it ran on.
    pub lane: u32,
    /// Start, µs since the run's epoch.
    pub start_us: u64,
    /// Outcome recorded, µs since the run's epoch.
    pub end_us: u64,
    /// `None` for a success, else the failure's kind (`timeout`, ...).
    pub kind: Option<String>,
    /// The report found the row wrong: it claims an outcome the item
    /// cannot have (a wrong hash, a success the server made fail). Drawn
    /// in the colour of wrong, whatever it claims.
    #[serde(default)]
    pub wrong: bool,
    /// The outcome as the tooltip says it.
    pub what: String,
}

/// One service time the server applied: from a request line complete to
/// its reply (or its fault).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Service {
    /// The item's id.
    pub id: u64,
    /// Start, µs since the run's epoch.
    pub start_us: u64,
    /// Service time over, µs since the run's epoch.
    pub end_us: u64,
}

impl Timeline {
    /// The timeline of a run: its report, its rows, and what the server
    /// logged (`served` may be empty), with `epoch` the instant the run's
    /// µs count from.
    pub fn new(report: &Report, rows: &[Row], served: &[ServedLine], epoch: Instant) -> Timeline {
        Timeline::from_parts(report, rows, service_of(served, epoch))
    }

    /// The timeline of a run from what its database keeps: its report, its
    /// rows and the service times (the `report` binary's way, which gives
    /// the same timeline as [`Timeline::new`] did during the run).
    pub fn from_parts(report: &Report, rows: &[Row], service: Vec<Service>) -> Timeline {
        let bars = rows
            .iter()
            .map(|row| Bar {
                id: row.id.0,
                lane: row.lane.0,
                start_us: row.started_us,
                end_us: row.finished_us,
                kind: row.outcome.as_ref().err().map(|f| f.kind.to_string()),
                wrong: report.wrong_ids.contains(&row.id.0),
                what: match &row.outcome {
                    _ if report.wrong_ids.contains(&row.id.0) => {
                        "wrong (see the report's wrong rows)".to_owned()
                    }
                    Ok(_) => "ok".to_owned(),
                    Err(failure) => failure.to_string(),
                },
            })
            .collect();
        Timeline {
            label: report.stage.clone(),
            report: report.clone(),
            bars,
            service,
            turns: None,
            tasks: None,
        }
    }

    /// The same timeline with the loop's recorded turns.
    pub fn with_turns(mut self, turns: Option<LoopTurns>) -> Timeline {
        self.turns = turns;
        self
    }

    /// The same timeline with the executor's recorded tasks: the page
    /// draws a row per task under the lanes, the trace a track per row.
    ///
    /// ```
    /// use testbed::timeline::{Timeline, render_page};
    /// # use testbed::report::{Report, RunFacts};
    /// # use testbed::protocol::Phases;
    /// # let report = Report::build(&[], &[], RunFacts::new("executor", Phases::Two));
    /// let trace = testbed::sample::task_trace(3, 2, true);
    /// let timeline = Timeline::new(&report, &[], &[], std::time::Instant::now())
    ///     .with_tasks(Some(trace));
    /// assert!(render_page(&[timeline]).contains(r#"<section id="tasks""#));
    /// ```
    pub fn with_tasks(mut self, tasks: Option<TaskTrace>) -> Timeline {
        self.tasks = tasks;
        self
    }

    /// The data as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a timeline is plain data and always serialises")
    }

    fn lanes(&self) -> u32 {
        self.bars.iter().map(|b| b.lane + 1).max().unwrap_or(1)
    }

    fn end_us(&self) -> u64 {
        self.bars.iter().map(|b| b.end_us).max().unwrap_or(0)
    }
}

/// The timeline written in the format `path`'s ending asks for: an
/// interactive page for `.html`, Chrome's trace event format for
/// `.trace.json` (Perfetto, `chrome://tracing`), the timeline's data for
/// `.json` (what `stack-timelines` reads), else an SVG picture with
/// `command` printed under it.
pub fn render_for(path: &Path, timeline: &Timeline, command: Option<&str>) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if name.ends_with(".html") {
        render_page(std::slice::from_ref(timeline))
    } else if name.ends_with(".trace.json") {
        render_trace(timeline)
    } else if name.ends_with(".json") {
        timeline.to_json()
    } else {
        render_stack(std::slice::from_ref(timeline), command)
    }
}

/// Keeps in the run's database what its timeline needs besides the rows
/// and the loop's turns: the report and the server's service times, so
/// that [`reread`] gives the same timeline long after the run.
pub fn keep(
    store: &mut Store,
    report: &Report,
    served: &[ServedLine],
    epoch: Instant,
) -> Result<(), StoreError> {
    let service =
        serde_json::to_string(&service_of(served, epoch)).expect("service times are plain data");
    store.record_replay(&report.to_json(), &service)
}

/// The timeline of the run a database holds, as [`keep`] left it, or
/// `None` when the run did not keep it (it was interrupted).
pub fn reread(store: &Store) -> Result<Option<Timeline>, StoreError> {
    let Some((report, service)) = store.replay()? else {
        return Ok(None);
    };
    let corrupt = |e: serde_json::Error| StoreError::Corrupt {
        id: 0,
        why: format!("the kept report does not decode: {e}"),
    };
    let report: Report = serde_json::from_str(&report).map_err(corrupt)?;
    let service: Vec<Service> = serde_json::from_str(&service).map_err(corrupt)?;
    let rows = store.rows()?;
    Ok(Some(
        Timeline::from_parts(&report, &rows, service)
            .with_turns(store.turns()?)
            .with_tasks(store.tasks()?),
    ))
}

/// The server's service times in µs since the run's `epoch`.
pub fn service_of(served: &[ServedLine], epoch: Instant) -> Vec<Service> {
    let micros = |at: Instant| {
        u64::try_from(at.saturating_duration_since(epoch).as_micros()).unwrap_or(u64::MAX)
    };
    served
        .iter()
        .map(|line| Service {
            id: line.id.0,
            start_us: micros(line.received),
            end_us: micros(line.done),
        })
        .collect()
}

/// Renders one run as an SVG document, without a log of service times (one
/// shade per bar). `command`, if given, is printed under the picture, so a
/// figure always says how to make it again.
pub fn render(report: &Report, rows: &[Row], command: Option<&str>) -> String {
    let timeline = Timeline::new(report, rows, &[], Instant::now());
    render_stack(std::slice::from_ref(&timeline), command)
}
