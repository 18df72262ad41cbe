//! The timeline in Chrome's trace event format: `--timeline run.trace.json`.
//!
//! The tracing ecosystem already reads this format (Perfetto,
//! `chrome://tracing`, and `tracing-chrome` writes it), so a run opens in
//! tools a reader may know, with their own zoom, search and statistics.
//! The file is one JSON object whose `traceEvents` are:
//!
//! - names (`ph: "M"`): the process is the run, track 0 the loop, track
//!   `N + 1` connection `N`;
//! - one complete event (`ph: "X"`, with `ts` and `dur` in µs) per item on
//!   its connection's track, and inside it one per service time the server
//!   applied to its lines;
//! - on the loop's track, each sleep as a complete event and each wake-up as
//!   an instant (`ph: "i"`) with what the turn saw and did in its `args`.

use serde_json::{Value, json};

use super::Timeline;
use super::trace_tasks::task_events;

/// The loop's track.
const LOOP_TID: u64 = 0;

/// The trace of one run, as a JSON document.
///
/// ```
/// use testbed::timeline::{Timeline, render_trace};
/// # use testbed::report::{Report, RunFacts};
/// # use testbed::protocol::Phases;
/// # let report = Report::build(&[], &[], RunFacts::new("select", Phases::Two));
/// let timeline = Timeline::new(&report, &[], &[], std::time::Instant::now());
/// let trace: serde_json::Value = serde_json::from_str(&render_trace(&timeline))?;
/// assert!(trace["traceEvents"].is_array());
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn render_trace(timeline: &Timeline) -> String {
    let pid = 1;
    let mut events = vec![
        json!({"name": "process_name", "ph": "M", "pid": pid, "tid": LOOP_TID,
               "args": {"name": format!("{}: {} items", timeline.label, timeline.report.items)}}),
        json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": LOOP_TID,
               "args": {"name": "loop"}}),
    ];
    for lane in 0..timeline.lanes() {
        events.push(
            json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid(lane),
                           "args": {"name": format!("connection #{lane}")}}),
        );
    }
    let mut service: std::collections::BTreeMap<u64, Vec<_>> = Default::default();
    for s in &timeline.service {
        service.entry(s.id).or_default().push(s);
    }
    for bar in &timeline.bars {
        events.push(json!({
            "name": format!("item {}", bar.id), "cat": "item", "ph": "X",
            "ts": bar.start_us, "dur": bar.end_us.saturating_sub(bar.start_us),
            "pid": pid, "tid": tid(bar.lane),
            "args": {"item": bar.id, "outcome": bar.what, "failure": bar.kind},
        }));
        for s in service.get(&bar.id).into_iter().flatten() {
            events.push(json!({
                "name": "at the server", "cat": "service", "ph": "X",
                "ts": s.start_us, "dur": s.end_us.saturating_sub(s.start_us),
                "pid": pid, "tid": tid(bar.lane), "args": {"item": bar.id},
            }));
        }
    }
    for (i, turn) in timeline.turns.iter().flat_map(|t| &t.turns).enumerate() {
        events.push(json!({
            "name": "asleep", "cat": "loop", "ph": "X",
            "ts": turn.woke_us.saturating_sub(turn.slept_us), "dur": turn.slept_us,
            "pid": pid, "tid": LOOP_TID,
        }));
        events.push(json!({
            "name": "wake", "cat": "loop", "ph": "i", "s": "t",
            "ts": turn.woke_us, "pid": pid, "tid": LOOP_TID,
            "args": {"turn": i, "ready": turn.ready, "timers": turn.timers,
                     "ran": turn.ran, "done": turn.done, "busy_us": turn.busy_us},
        }));
    }
    if let Some(tasks) = &timeline.tasks {
        task_events(tasks, &mut events);
    }
    let trace: Value = json!({"traceEvents": events, "displayTimeUnit": "ms"});
    trace.to_string()
}

/// The track of connection `lane`: after the loop's.
fn tid(lane: u32) -> u64 {
    u64::from(lane) + 1
}
