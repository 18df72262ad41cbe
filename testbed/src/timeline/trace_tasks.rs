//! The executor's tasks in Chrome's trace event format, beside the
//! connections (`timeline/trace.rs`): a process of their own, whose tracks
//! are the packed rows of tasks (`timeline/task_rows.rs`).
//!
//! In Perfetto a reader then sees which task held the thread and when,
//! follows an arrow from each wake to the poll it caused, and reads two
//! counters over time. The events are:
//!
//! - names (`ph: "M"`): the process `tasks`, track 0 `woken from outside`
//!   (spawns, sockets, timers, other threads), track `N + 1` row `N`;
//! - one complete event (`ph: "X"`) per poll on its task's row, named
//!   after the task (`long poll` in its category when it held the thread
//!   10 ms or more);
//! - per wake from outside, a 1 µs complete event on track 0, for its
//!   arrow to start from;
//! - per poll with a kept cause, a flow (`ph: "s"` at the wake, on the
//!   waker's row or track 0; `ph: "f"`, `bp: "e"`, at the poll's start),
//!   the two joined by the wake's index as `id`;
//! - counter events (`ph: "C"`): `tasks alive` and `ready queue`.

use serde_json::{Value, json};

use super::legend::LONG_POLL_US;
use super::task_rows::pack;
use crate::tasks::{TaskTrace, TaskWake, WakeBy};

/// The tasks' process in the trace (the run's connections are process 1).
pub(super) const TASKS_PID: u64 = 2;

/// The track of wakes from outside any task.
const OUTSIDE_TID: u64 = 0;

/// The events of `trace`, appended to `events`.
pub(super) fn task_events(trace: &TaskTrace, events: &mut Vec<Value>) {
    let pid = TASKS_PID;
    let rows = pack(trace);
    let tid = |task: u64| {
        rows.of_task
            .get(&task)
            .map_or(OUTSIDE_TID, |&r| u64::from(r) + 1)
    };
    events.push(
        json!({"name": "process_name", "ph": "M", "pid": pid, "tid": OUTSIDE_TID,
                       "args": {"name": "tasks"}}),
    );
    events.push(
        json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": OUTSIDE_TID,
                       "args": {"name": "woken from outside"}}),
    );
    for row in 0..rows.tasks.len() {
        events.push(
            json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": row as u64 + 1,
                           "args": {"name": rows.label(row)}}),
        );
    }
    for (i, w) in trace.wakes.iter().enumerate() {
        if waker(w).is_none() {
            events.push(json!({
                "name": format!("wake task {}: {}", w.task, what(w.by)), "cat": "wake", "ph": "X",
                "ts": w.at_us, "dur": 1, "pid": pid, "tid": OUTSIDE_TID, "args": {"wake": i},
            }));
        }
    }
    for p in &trace.polls {
        let long = p.busy_us >= LONG_POLL_US;
        let cause = p
            .cause
            .and_then(|c| trace.wakes.get(c as usize).map(|w| (c, w)));
        events.push(json!({
            "name": format!("task {}", p.task), "cat": if long { "long poll" } else { "poll" },
            "ph": "X", "ts": p.start_us, "dur": p.busy_us, "pid": pid, "tid": tid(p.task),
            "args": {"task": p.task, "ready": p.ready,
                     "woken_by": cause.map(|(_, w)| what(w.by))},
        }));
        if let Some((c, w)) = cause {
            let from = waker(w).map_or(OUTSIDE_TID, tid);
            events.push(json!({"name": "wake", "cat": "wake", "ph": "s", "id": c,
                               "ts": w.at_us, "pid": pid, "tid": from}));
            events.push(
                json!({"name": "wake", "cat": "wake", "ph": "f", "bp": "e", "id": c,
                               "ts": p.start_us, "pid": pid, "tid": tid(p.task)}),
            );
        }
    }
    for c in &trace.counters {
        events.push(
            json!({"name": "tasks alive", "ph": "C", "ts": c.at_us, "pid": pid,
                           "args": {"alive": c.alive}}),
        );
        events.push(
            json!({"name": "ready queue", "ph": "C", "ts": c.at_us, "pid": pid,
                           "args": {"ready": c.ready}}),
        );
    }
}

/// The task whose poll made wake `w` (the woken task itself for a
/// self-wake), or `None` for a wake from outside any task.
fn waker(w: &TaskWake) -> Option<u64> {
    match w.by {
        WakeBy::Task(by) => Some(by),
        WakeBy::Itself => Some(w.task),
        WakeBy::Spawn | WakeBy::Io | WakeBy::Timer | WakeBy::Thread => None,
    }
}

/// A wake's cause in words.
fn what(by: WakeBy) -> String {
    match by {
        WakeBy::Spawn => "spawned".to_owned(),
        WakeBy::Io => "a ready socket".to_owned(),
        WakeBy::Timer => "a timer".to_owned(),
        WakeBy::Task(t) => format!("task {t}"),
        WakeBy::Itself => "itself".to_owned(),
        WakeBy::Thread => "another thread".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::sample::{BLOCKING_POLL_US, task_trace};

    fn events(trace: &TaskTrace) -> Vec<Value> {
        let mut events = Vec::new();
        task_events(trace, &mut events);
        // What a file holds: the events survive a round trip as text.
        let text = serde_json::to_string(&events).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn of<'a>(events: &'a [Value], ph: &str) -> Vec<&'a Value> {
        events.iter().filter(|e| e["ph"] == ph).collect()
    }

    #[test]
    fn a_poll_is_a_complete_event_on_its_row_and_the_blocking_one_is_long() {
        let trace = task_trace(4, 2, true);
        let events = events(&trace);
        let polls: Vec<_> = of(&events, "X")
            .into_iter()
            .filter(|e| e["cat"] != "wake")
            .collect();
        assert_eq!(polls.len(), trace.polls.len());
        let long: Vec<_> = polls.iter().filter(|e| e["cat"] == "long poll").collect();
        assert_eq!(long.len(), 1, "{long:?}");
        assert_eq!(long[0]["dur"], BLOCKING_POLL_US);
        assert_eq!(long[0]["args"]["woken_by"], "a ready socket");
        assert!(
            polls
                .iter()
                .all(|e| e["pid"] == TASKS_PID && e["tid"] != OUTSIDE_TID)
        );
        let names = of(&events, "M");
        assert!(
            names
                .iter()
                .any(|e| e["args"]["name"] == "woken from outside")
        );
    }

    #[test]
    fn each_wake_that_caused_a_poll_is_one_flow_from_its_source_to_that_poll() {
        let trace = task_trace(4, 2, false);
        let events = events(&trace);
        let starts = of(&events, "s");
        let finishes = of(&events, "f");
        let caused = trace.polls.iter().filter(|p| p.cause.is_some()).count();
        assert_eq!((starts.len(), finishes.len()), (caused, caused));
        let by_id: BTreeMap<u64, &Value> = finishes
            .iter()
            .map(|e| (e["id"].as_u64().unwrap(), *e))
            .collect();
        assert_eq!(by_id.len(), caused, "the ids are distinct");
        for s in &starts {
            let f = by_id[&s["id"].as_u64().unwrap()];
            assert!(s["ts"].as_u64() <= f["ts"].as_u64(), "{s} before {f}");
            assert_eq!(f["bp"], "e", "the arrow ends on the poll that starts there");
        }
        // A self-wake starts on its own task's row, where its poll is.
        let itself = trace
            .wakes
            .iter()
            .position(|w| w.by == WakeBy::Itself)
            .unwrap() as u64;
        let s = starts.iter().find(|s| s["id"] == itself).unwrap();
        assert_eq!(s["tid"], by_id[&itself]["tid"]);
    }

    #[test]
    fn the_counters_are_two_series_of_counter_events() {
        let trace = task_trace(3, 1, false);
        let events = events(&trace);
        let counters = of(&events, "C");
        assert_eq!(counters.len(), 2 * trace.counters.len());
        let first_alive = counters
            .iter()
            .find(|e| e["name"] == "tasks alive")
            .unwrap();
        assert_eq!(first_alive["args"]["alive"], 3, "three tasks spawned");
    }
}
