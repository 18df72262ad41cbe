//! Reference `threads`: one OS thread per connection, blocking I/O.
//!
//! What a Rust programmer writes without thinking twice, and the baseline
//! every rung of the ladder must be judged against. `--conns` threads each
//! own one connection and run 01-sync's blocking request, unchanged; they
//! take items from one shared crossbeam channel, so a thread that finishes
//! early simply takes the next item (no partitions to balance, unlike
//! 02-fork).
//!
//! The outcomes travel back on a second channel to the calling thread,
//! which owns the one database connection and records them: a
//! `rusqlite::Connection` may move between threads but not be shared by
//! them, and funnelling writes to one owner is the usual answer (the
//! alternative, a `Mutex<Store>`, is what the tokio reference does). The
//! finish time stored is the thread's, stamped when its reply was read:
//! by the time the writer records it, the thread may be well into its next
//! item, and a later stamp would draw the two overlapping on the thread's
//! lane of the timeline.
//!
//! Not handicapped: `TCP_NODELAY` (through `sync::connect`), connections
//! reused across items, threads started once per run. Not here: any event
//! loop; the kernel's scheduler is the event loop.

use std::net::TcpStream;
use std::thread;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use testbed::conn::Conn;
use testbed::outcome::Outcome;
use testbed::protocol::ItemId;
use testbed::stage::{RunStats, Scenario, Stage, StageError};
use testbed::store::Lane;
use testbed::workload::Item;

/// Stack size of each connection thread. Each thread needs a few KiB (a read
/// buffer, a formatted line); std's default of 2 MiB would reserve 10 GiB of
/// address space at 5,000 connections. Anyone running thousands of threads
/// sets this; it changes nothing but the reservation.
pub const THREAD_STACK: usize = 256 * 1024;

/// The thread-per-connection reference.
#[derive(Debug, Clone, Copy, Default)]
pub struct Threads;

/// One finished item, on its way to the database.
struct Done {
    id: ItemId,
    lane: Lane,
    started: Instant,
    finished: Instant,
    outcome: Outcome,
}

impl Stage for Threads {
    fn name(&self) -> &'static str {
        "threads"
    }

    fn run(&self, scenario: &Scenario) -> Result<RunStats, StageError> {
        let conns = scenario.conns.min(scenario.items.len()).max(1);
        let mut store = scenario.open_store()?;
        // Every item is queued up front; the channel's end closes when
        // `todo_tx` drops, which is how the threads learn the list is done.
        let (todo_tx, todo_rx) = crossbeam_channel::unbounded::<&Item>();
        for item in &scenario.items {
            todo_tx
                .send(item)
                .expect("the receiver is alive: we hold it");
        }
        drop(todo_tx);
        let (done_tx, done_rx) = crossbeam_channel::unbounded::<Done>();

        // ANCHOR: scope
        // Scoped threads may borrow the scenario, and the scope joins them
        // all before returning, even when recording fails half way.
        thread::scope(|scope| -> Result<(), StageError> {
            for lane in 0..conns {
                let (todo_rx, done_tx) = (todo_rx.clone(), done_tx.clone());
                thread::Builder::new()
                    .name(format!("conn-{lane}"))
                    .stack_size(THREAD_STACK)
                    .spawn_scoped(scope, move || {
                        serve(scenario, Lane::of(lane), &todo_rx, &done_tx)
                    })?;
            }
            // Only the threads' copies are left: when the last thread ends,
            // `done_rx` runs dry and the loop below ends.
            drop(done_tx);
            for done in done_rx {
                store.record_span(
                    done.id,
                    done.lane,
                    done.started,
                    done.finished,
                    &done.outcome,
                )?;
            }
            Ok(())
        })?;
        // ANCHOR_END: scope
        Ok(RunStats::new(conns))
    }
}

// ANCHOR: serve
/// One connection's thread: take an item, request it, hand the outcome over.
fn serve(scenario: &Scenario, lane: Lane, todo: &Receiver<&Item>, done: &Sender<Done>) {
    let mut conn: Option<Conn<TcpStream>> = None;
    for item in todo {
        let started = Instant::now();
        // 01-sync's loop body: a broken connection is dropped there, and
        // the next item reconnects.
        let outcome = sync::connect_and_request(&mut conn, scenario, item);
        let finished = Done {
            id: item.id,
            lane,
            started,
            finished: Instant::now(),
            outcome,
        };
        if done.send(finished).is_err() {
            // The recorder stopped (the database failed): nobody will store
            // anything more, so stop working.
            return;
        }
    }
}
// ANCHOR_END: serve
