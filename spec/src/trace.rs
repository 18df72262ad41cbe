//! Traces: what a run recorded, what it should have, and the comparison.
//!
//! An expected trace is a list of events in order. An event may carry a
//! lower bound on its time ("not before 10 ms": a runtime may be late,
//! never early; exact times would fail on a busy machine). A group of
//! events may come in any order among themselves, where a runtime may
//! legitimately order them either way (tasks that run in parallel, or
//! one at a time in an order drawn from a seed).

use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One expected event, or a group of them in any order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// This event next, at least this long after the start.
    Event(String, Duration),
    /// These events next, in any order.
    Unordered(Vec<Expect>),
    /// In this order on a runtime with one thread that polls tasks in the
    /// order they were woken; in any order where tasks run in parallel or
    /// in an order drawn from a seed.
    OrderedOnOneThread(Vec<Expect>),
}

/// An event, with no bound on its time.
pub fn ev(name: &str) -> Expect {
    Expect::Event(name.to_owned(), Duration::ZERO)
}

/// An event not before `ms` milliseconds after the start.
pub fn at_least(name: &str, ms: u64) -> Expect {
    Expect::Event(name.to_owned(), Duration::from_millis(ms))
}

/// Events in any order.
pub fn any_order(events: Vec<Expect>) -> Expect {
    Expect::Unordered(events)
}

/// Events in order where one thread runs every task, in the order they
/// were woken.
pub fn one_thread_order(events: Vec<Expect>) -> Expect {
    Expect::OrderedOnOneThread(events)
}

/// What a run recorded: events with their time since the start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// In the order they happened.
    pub events: Vec<(String, Duration)>,
}

/// Where tasks record events; shared by every thread of a run.
#[derive(Debug)]
pub struct Recorder {
    start: Instant,
    events: Mutex<Vec<(String, Duration)>>,
}

impl Recorder {
    /// Starts the clock.
    pub fn new() -> Recorder {
        Recorder {
            start: Instant::now(),
            events: Mutex::new(Vec::new()),
        }
    }

    /// Records `event` now.
    pub fn log(&self, event: impl Into<String>) {
        let at = self.start.elapsed();
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((event.into(), at));
    }

    /// The time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The events so far.
    pub fn trace(&self) -> Trace {
        Trace {
            events: self
                .events
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }
}

impl Default for Recorder {
    fn default() -> Recorder {
        Recorder::new()
    }
}

/// Flattens `expect` into groups of events that may come in any order.
fn groups(expect: &[Expect], unordered: bool, out: &mut Vec<Vec<(String, Duration)>>) {
    for item in expect {
        match item {
            Expect::Event(name, min) => out.push(vec![(name.clone(), *min)]),
            Expect::Unordered(inner) => {
                let mut flat = Vec::new();
                groups(inner, unordered, &mut flat);
                out.push(flat.into_iter().flatten().collect());
            }
            Expect::OrderedOnOneThread(inner) if unordered => {
                groups(&[Expect::Unordered(inner.clone())], unordered, out)
            }
            Expect::OrderedOnOneThread(inner) => groups(inner, unordered, out),
        }
    }
}

/// Does `trace` match `expect`? `unordered`: the runtime runs tasks on
/// several threads at once, or in an order drawn from a seed
/// ([`Runtime::unordered`](crate::Runtime::unordered)). `Err` says where
/// it went wrong.
pub fn check(expect: &[Expect], trace: &Trace, unordered: bool) -> Result<(), String> {
    let mut flat = Vec::new();
    groups(expect, unordered, &mut flat);
    let mut at = 0;
    for group in &flat {
        let end = at + group.len();
        let Some(got) = trace.events.get(at..end) else {
            return Err(format!(
                "the trace ends after {} events; expected {}",
                trace.events.len(),
                flat.iter().map(Vec::len).sum::<usize>()
            ));
        };
        let mut left: Vec<&(String, Duration)> = group.iter().collect();
        for (name, time) in got {
            let Some(i) = left.iter().position(|(want, _)| want == name) else {
                return Err(format!("event {}: `{name}` was not expected here", at + 1));
            };
            let (_, min) = left.remove(i);
            if time < min {
                return Err(format!(
                    "`{name}` came at {} ms, before its bound of {} ms",
                    time.as_millis(),
                    min.as_millis()
                ));
            }
        }
        at = end;
    }
    if at < trace.events.len() {
        return Err(format!(
            "unexpected event {}: `{}`",
            at + 1,
            trace.events[at].0
        ));
    }
    Ok(())
}

/// One event of an expected trace, flattened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedEvent {
    /// What is recorded.
    pub name: String,
    /// Its lower bound on time (zero: none).
    pub not_before: Duration,
    /// It belongs to a group of events that may come in any order.
    pub any_order: bool,
}

/// The expected trace one event a line, as a runtime (`unordered` or
/// not) is held to it.
pub fn expected_events(expect: &[Expect], unordered: bool) -> Vec<ExpectedEvent> {
    let mut flat = Vec::new();
    groups(expect, unordered, &mut flat);
    flat.into_iter()
        .flat_map(|group| {
            let any_order = group.len() > 1;
            group
                .into_iter()
                .map(move |(name, not_before)| ExpectedEvent {
                    name,
                    not_before,
                    any_order,
                })
        })
        .collect()
}

/// Expected and actual traces side by side, one event a line.
pub fn side_by_side(expect: &[Expect], trace: &Trace, unordered: bool) -> String {
    let left: Vec<String> = expected_events(expect, unordered)
        .into_iter()
        .map(|e| {
            let mark = if e.any_order { "~ " } else { "" };
            let bound = if e.not_before.is_zero() {
                String::new()
            } else {
                format!(" (>= {} ms)", e.not_before.as_millis())
            };
            format!("{mark}{}{bound}", e.name)
        })
        .collect();
    let right: Vec<String> = trace
        .events
        .iter()
        .map(|(name, at)| format!("{name} @{} ms", at.as_millis()))
        .collect();
    let width = left.iter().map(String::len).max().unwrap_or(0).max(8);
    let mut out = format!("  {:width$} | actual\n", "expected");
    for i in 0..left.len().max(right.len()) {
        let l = left.get(i).map_or("", String::as_str);
        let r = right.get(i).map_or("", String::as_str);
        let differs = if l.trim_start_matches("~ ").split(" (>=").next() == r.split(" @").next() {
            ' '
        } else {
            '!'
        };
        let _ = writeln!(out, "{differs} {l:width$} | {r}");
    }
    out
}
