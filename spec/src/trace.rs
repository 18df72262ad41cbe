//! Traces: what a run recorded, what it should have, and the comparison.
//!
//! An expected trace is a list of events in order. An event may carry a
//! lower bound on its time ("not before 10 ms": a runtime may be late,
//! never early; exact times would fail on a busy machine). A group of
//! events may come in any order among themselves, where a runtime may
//! legitimately order them either way (tasks that run in parallel).

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
    /// In this order on a runtime with one thread; in any order where
    /// tasks run in parallel.
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

/// Events in order where one thread runs every task.
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
fn groups(expect: &[Expect], parallel: bool, out: &mut Vec<Vec<(String, Duration)>>) {
    for item in expect {
        match item {
            Expect::Event(name, min) => out.push(vec![(name.clone(), *min)]),
            Expect::Unordered(inner) => {
                let mut flat = Vec::new();
                groups(inner, parallel, &mut flat);
                out.push(flat.into_iter().flatten().collect());
            }
            Expect::OrderedOnOneThread(inner) if parallel => {
                groups(&[Expect::Unordered(inner.clone())], parallel, out)
            }
            Expect::OrderedOnOneThread(inner) => groups(inner, parallel, out),
        }
    }
}

/// Does `trace` match `expect`? `parallel`: the runtime runs tasks on
/// several threads at once. `Err` says where it went wrong.
pub fn check(expect: &[Expect], trace: &Trace, parallel: bool) -> Result<(), String> {
    let mut flat = Vec::new();
    groups(expect, parallel, &mut flat);
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

/// Expected and actual traces side by side, one event a line.
pub fn side_by_side(expect: &[Expect], trace: &Trace, parallel: bool) -> String {
    let mut flat = Vec::new();
    groups(expect, parallel, &mut flat);
    let mut left = Vec::new();
    for group in flat {
        let mark = if group.len() > 1 { "~ " } else { "" };
        for (name, min) in group {
            let bound = if min.is_zero() {
                String::new()
            } else {
                format!(" (>= {} ms)", min.as_millis())
            };
            left.push(format!("{mark}{name}{bound}"));
        }
    }
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
