//! The page's data: each run as columns of small numbers.
//!
//! A run of 100,000 items written as one JSON object per bar is some 25 MB
//! of repeated keys and large timestamps, and the browser spends seconds
//! parsing it. Here each field is one array (columns, not rows), the bars
//! are grouped by lane and sorted by start, and every time is written as a
//! small difference: a bar's start as the gap since the previous bar on its
//! lane ended, its end as its duration, a service time as its offset into
//! the bar. Outcomes, which repeat, are an index into a table of the
//! distinct ones. The script (`page.js`, `decode`) undoes all of this once,
//! into typed arrays.

use std::collections::BTreeMap;

use serde::Serialize;

use super::task_data::Tasks;
use crate::report::Report;
use crate::timeline::{Service, Timeline};

/// One run, in columns. Times are µs since the run's start.
#[derive(Serialize)]
pub(super) struct Run<'a> {
    /// The run's name (its stage).
    label: String,
    /// The run's report, whole: what CI's check of the book's figures
    /// compares with the figure's recorded runs.
    report: &'a Report,
    /// Little's ideal throughput, items/s (none at zero latency).
    ideal: Option<f64>,
    /// The outage window, ms, if the run had one.
    outage_ms: Option<[f64; 2]>,
    /// How many bars each lane holds, lane 0 first: the bars below come
    /// lane by lane, in this order.
    per_lane: Vec<u32>,
    /// Each bar's item id, as the difference from the previous bar's.
    id: Vec<i64>,
    /// Each bar's start, as the gap since the previous bar on its lane
    /// ended (the first bar of a lane: since 0). Negative if bars overlap.
    gap: Vec<i64>,
    /// Each bar's duration.
    dur: Vec<u64>,
    /// Each bar's index in `outcomes`.
    outcome: Vec<u32>,
    /// The distinct outcomes: `[colour key, failure kind or "", what the
    /// details say]`. The colour key is `wrong` for a row the report found
    /// wrong, whatever it claims, else the kind, else `ok`.
    outcomes: Vec<[String; 3]>,
    /// How many service times each bar has (0 when the server kept none).
    svc: Vec<u32>,
    /// Each service time's start, as its offset from its bar's start.
    svc_at: Vec<i64>,
    /// Each service time's length.
    svc_len: Vec<u64>,
    /// The loop's wake-ups, if the stage has a loop.
    turns: Option<Turns>,
    /// The executor's tasks, if it recorded them.
    tasks: Option<Tasks>,
}

/// The loop's turns, in columns.
#[derive(Serialize)]
struct Turns {
    /// Each wake-up, as the difference from the previous one.
    woke: Vec<i64>,
    slept: Vec<u64>,
    busy: Vec<u64>,
    ready: Vec<u32>,
    timers: Vec<u32>,
    ran: Vec<u32>,
    done: Vec<u32>,
    /// Turns after the log was full: counted, not kept.
    dropped: u64,
}

/// What a difference of two µs counts is, as JSON writes it.
fn delta(now: u64, before: u64) -> i64 {
    // µs since a run's start fit an i64 for 290,000 years.
    now as i64 - before as i64
}

impl Run<'_> {
    /// The columns of `timeline`.
    pub(super) fn of(timeline: &Timeline) -> Run<'_> {
        let mut service: BTreeMap<u64, Vec<&Service>> = BTreeMap::new();
        for s in &timeline.service {
            service.entry(s.id).or_default().push(s);
        }
        let mut order: Vec<usize> = (0..timeline.bars.len()).collect();
        order.sort_by_key(|&i| {
            let b = &timeline.bars[i];
            (b.lane, b.start_us, b.id)
        });
        let lanes = timeline.bars.iter().map(|b| b.lane + 1).max().unwrap_or(0);
        let mut run = Run {
            label: timeline.label.clone(),
            report: &timeline.report,
            ideal: timeline.report.ideal_throughput,
            outage_ms: timeline.report.outage_ms,
            per_lane: vec![0; lanes as usize],
            id: Vec::with_capacity(order.len()),
            gap: Vec::with_capacity(order.len()),
            dur: Vec::with_capacity(order.len()),
            outcome: Vec::with_capacity(order.len()),
            outcomes: Vec::new(),
            svc: Vec::with_capacity(order.len()),
            svc_at: Vec::new(),
            svc_len: Vec::new(),
            tasks: timeline.tasks.as_ref().map(Tasks::of),
            turns: timeline.turns.as_ref().map(|t| {
                let mut before = 0;
                Turns {
                    woke: t
                        .turns
                        .iter()
                        .map(|turn| {
                            let d = delta(turn.woke_us, before);
                            before = turn.woke_us;
                            d
                        })
                        .collect(),
                    slept: t.turns.iter().map(|turn| turn.slept_us).collect(),
                    busy: t.turns.iter().map(|turn| turn.busy_us).collect(),
                    ready: t.turns.iter().map(|turn| turn.ready).collect(),
                    timers: t.turns.iter().map(|turn| turn.timers).collect(),
                    ran: t.turns.iter().map(|turn| turn.ran).collect(),
                    done: t.turns.iter().map(|turn| turn.done).collect(),
                    dropped: t.dropped,
                }
            }),
        };
        let mut known: BTreeMap<[String; 3], u32> = BTreeMap::new();
        let (mut id_before, mut lane_before, mut end_before) = (0, u32::MAX, 0);
        for i in order {
            let bar = &timeline.bars[i];
            if bar.lane != lane_before {
                (lane_before, end_before) = (bar.lane, 0);
            }
            run.per_lane[bar.lane as usize] += 1;
            run.id.push(delta(bar.id, id_before));
            run.gap.push(delta(bar.start_us, end_before));
            run.dur.push(bar.end_us.saturating_sub(bar.start_us));
            (id_before, end_before) = (bar.id, bar.end_us);
            let kind = bar.kind.clone().unwrap_or_default();
            let key = if bar.wrong {
                "wrong".to_owned()
            } else if kind.is_empty() {
                "ok".to_owned()
            } else {
                kind.clone()
            };
            let next = known.len() as u32;
            let index = *known.entry([key, kind, bar.what.clone()]).or_insert(next);
            run.outcome.push(index);
            let spans = service.get(&bar.id).map_or(&[][..], Vec::as_slice);
            run.svc.push(spans.len() as u32);
            for s in spans {
                run.svc_at.push(delta(s.start_us, bar.start_us));
                run.svc_len.push(s.end_us.saturating_sub(s.start_us));
            }
        }
        run.outcomes = vec![Default::default(); known.len()];
        for (outcome, index) in known {
            run.outcomes[index as usize] = outcome;
        }
        run
    }
}
