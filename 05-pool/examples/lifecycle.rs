//! The life of a pool's connections, drawn one character per millisecond:
//! chapter 5's timeline of timeouts and recycling.
//!
//! The stage's own timeline (`--timeline`) draws one bar per request; it
//! cannot show a connection being closed and another opened in its place,
//! which is most of what stage 5 does. This example runs two small scenes
//! with the library API, keeps the pool's journal, and draws every place
//! of the pool as a line of text:
//!
//! 1. a burst of work with one hung reply (read timeout), connections
//!    retired after `max_uses`, a quiet spell in which the idle timeout
//!    closes all but `min_idle` connections, then requests one at a time,
//!    all on the most recently used connection;
//! 2. the server killed in the middle of a run and restarted 40 ms later:
//!    the requests in flight fail, the pool probes with backoff, then
//!    reconnects by itself.
//!
//! Run it with `cargo run --release -p pool --example lifecycle`. Timings
//! are real, so the picture changes a little from run to run.
//!
//! Not here: anything the stage or its tests rely on.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::thread;
use std::time::{Duration, Instant};

use pool::journal::{Entry, Happening};
use pool::stats::CloseReason;
use pool::{Backend, CheckoutPool, Config, FinishedCall, Selector};
use select::slot::SlotId;
use testbed::server::{ServerConfig, SlowServer};
use testbed::workload::{Item, items};

const MS: Duration = Duration::from_millis(1);

fn main() -> io::Result<()> {
    scene_one()?;
    println!();
    scene_two()
}

/// Timeouts, recycling, idle connections closing, the hot standby.
fn scene_one() -> io::Result<()> {
    // With seed 3, one reply of the first burst hangs (5% of the lines).
    let server = SlowServer::spawn(server_config("2ms", "hang=0.05", 3))?;
    let mut config = Config::new(server.addr(), 3);
    config.read_timeout = Some(12 * MS);
    config.knobs.max_uses = Some(4);
    config.knobs.idle_timeout = Some(15 * MS);
    config.knobs.min_idle = 1;
    let mut pool = CheckoutPool::new(Selector::new(Backend::Epoll)?, config)?;
    pool.keep_journal();
    let start = Instant::now();
    let mut log = Vec::new();

    let work = items(26, 1);
    run_window(&mut pool, &work[..18], &mut log)?;
    idle_for(&mut pool, 40 * MS)?;
    for item in &work[18..] {
        run_window(&mut pool, std::slice::from_ref(item), &mut log)?;
    }
    pool.close(&mut Vec::new())?;

    println!(
        "scene 1: 3 connections at most, read timeout 12 ms, max uses 4, idle timeout 15 ms, min idle 1"
    );
    println!("         18 items at once, 40 ms of nothing, then 8 items one at a time");
    draw(start, pool.journal(), &log, 3);
    summary(&pool, &log);
    Ok(())
}

/// A server that dies and comes back.
fn scene_two() -> io::Result<()> {
    let server = SlowServer::spawn(server_config("3ms", "none", 1))?;
    let addr = server.addr();
    let mut pool = CheckoutPool::new(Selector::new(Backend::Epoll)?, Config::new(addr, 3))?;
    pool.keep_journal();
    let start = Instant::now();
    let mut log = Vec::new();

    let work = items(30, 1);
    let mut server = Some(server);
    let mut restart = None;
    let mut queue = work.iter().cloned().peekable();
    while queue.peek().is_some() || pool.outstanding() > 0 {
        feed(&mut pool, &mut queue)?;
        collect(&mut pool, &mut log)?;
        if log.len() >= 9
            && let Some(running) = server.take()
        {
            running.shutdown();
            restart = Some(restart_later(addr, 40 * MS));
        }
    }
    pool.close(&mut Vec::new())?;
    drop(restart);

    println!("scene 2: the server is killed after 9 items, and back 40 ms later");
    draw(start, pool.journal(), &log, 3);
    summary(&pool, &log);
    Ok(())
}

/// The pool's counters, and which items failed how.
fn summary(pool: &CheckoutPool, log: &[Logged]) {
    println!("  pool: {}", pool.stats().connections_line());
    let mut failed: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (call, _) in log {
        if let Err(failure) = &call.outcome {
            failed
                .entry(failure.kind.as_str())
                .or_default()
                .push(call.item.0.to_string());
        }
    }
    for (kind, ids) in failed {
        println!("  {kind}: item {}", ids.join(", "));
    }
}

fn server_config(latency: &str, faults: &str, seed: u64) -> ServerConfig {
    ServerConfig {
        latency: latency.parse().expect("a valid latency spec"),
        faults: faults.parse().expect("a valid fault spec"),
        seed,
        max_conns: None,
    }
}

/// Starts a server on `addr` after `delay`; it stops when the handle is
/// dropped.
fn restart_later(addr: SocketAddr, delay: Duration) -> std::sync::mpsc::Sender<()> {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    thread::spawn(move || {
        thread::sleep(delay);
        if let Ok(server) = SlowServer::bind(addr, server_config("3ms", "none", 1)) {
            let _ = stopped.recv();
            server.shutdown();
        }
    });
    stop
}

/// A finished call and the time the loop handed it back.
type Logged = (FinishedCall, Instant);

/// Sends `work` as the stage does, and waits for all of it.
fn run_window(pool: &mut CheckoutPool, work: &[Item], log: &mut Vec<Logged>) -> io::Result<()> {
    let mut queue = work.iter().cloned().peekable();
    while queue.peek().is_some() || pool.outstanding() > 0 {
        feed(pool, &mut queue)?;
        collect(pool, log)?;
    }
    Ok(())
}

/// The stage's producer: one checkout per item, at most `size` queued.
fn feed(
    pool: &mut CheckoutPool,
    queue: &mut std::iter::Peekable<impl Iterator<Item = Item>>,
) -> io::Result<()> {
    while pool.waiting() < pool.config().size
        && let Some(item) = queue.next()
    {
        let checkout = pool.checkout()?;
        pool.call(&checkout, item)?;
    }
    Ok(())
}

/// One turn, logging what finished.
fn collect(pool: &mut CheckoutPool, log: &mut Vec<Logged>) -> io::Result<()> {
    let mut done = Vec::new();
    pool.turn(&mut done)?;
    let now = Instant::now();
    log.extend(done.into_iter().map(|c| (c, now)));
    Ok(())
}

/// Lets the pool's timers run for `quiet` with no work.
fn idle_for(pool: &mut CheckoutPool, quiet: Duration) -> io::Result<()> {
    let until = Instant::now() + quiet;
    while Instant::now() < until {
        // `turn` sleeps until the next idle timer; with none left it
        // returns at once, so pace the loop.
        pool.turn(&mut Vec::new())?;
        thread::sleep(MS / 2);
    }
    Ok(())
}

/// What one millisecond of one place looked like.
fn draw(start: Instant, journal: &[Entry], log: &[Logged], size: usize) {
    let at = |t: Instant| t.saturating_duration_since(start).as_millis() as usize;
    let end = journal
        .iter()
        .map(|e| at(e.at))
        .chain(log.iter().map(|(_, t)| at(*t)))
        .max()
        .unwrap_or(0)
        + 2;
    let mut lanes = vec![vec![' '; end]; size];
    let mut connects = vec![' '; end];
    // Connections: handshake, then open (idle) until closed.
    let mut since: BTreeMap<usize, (usize, char)> = BTreeMap::new();
    // Closes are marked last, over the call that ended with them.
    let mut closes = Vec::new();
    for entry in journal {
        let t = at(entry.at);
        match entry.what {
            Happening::Connecting(slot) => {
                since.insert(slot.index(), (t, 'c'));
            }
            Happening::Connected(slot) => {
                fill(
                    &mut lanes[slot.index()],
                    since.get(&slot.index()).map_or(t, |s| s.0),
                    t,
                    'c',
                );
                since.insert(slot.index(), (t, '.'));
            }
            Happening::Closed { slot, reason } => {
                if let Some((from, _)) = since.remove(&slot.index()) {
                    fill(&mut lanes[slot.index()], from, t, '.');
                }
                let mark = match reason {
                    CloseReason::MaxUses => 'R',
                    CloseReason::Idle => 'I',
                    CloseReason::Error | CloseReason::Timeout => 'X',
                    CloseReason::Shutdown => ' ',
                };
                closes.push((slot.index(), t, mark));
            }
            Happening::ConnectFailed { slot, .. } => {
                if let Some(slot) = slot {
                    since.remove(&slot.index());
                }
                connects[t] = 'r';
            }
            _ => {}
        }
    }
    // Calls, over the connection they ran on.
    for (call, finished) in log {
        let Some(lane) = call.slot.map(SlotId::index) else {
            continue;
        };
        let mark = match &call.outcome {
            Ok(_) => char::from(b'0' + (call.item.0 % 10) as u8),
            Err(failure) => failure
                .kind
                .as_str()
                .chars()
                .next()
                .map_or('?', |c| c.to_ascii_uppercase()),
        };
        let (from, to) = (at(call.started), at(*finished));
        fill(&mut lanes[lane], from, to.max(from + 1), mark);
    }
    for (lane, t, mark) in closes {
        lanes[lane][t] = mark;
    }
    let ruler: String = (0..end)
        .map(|t| if t % 10 == 0 { '|' } else { ' ' })
        .collect();
    let labels: String = (0..end)
        .step_by(10)
        .map(|t| format!("{:<10}", format!("{t}")))
        .collect();
    println!("  ms      {labels}");
    println!("          {ruler}");
    for (lane, cells) in lanes.iter().enumerate() {
        println!(
            "  lane {lane}  {}",
            cells.iter().collect::<String>().trim_end()
        );
    }
    let refused: String = connects.iter().collect();
    if !refused.trim().is_empty() {
        println!("  refused {}", refused.trim_end());
    }
}

/// Paints `mark` over `cells[from..to]`.
fn fill(cells: &mut [char], from: usize, to: usize, mark: char) {
    let to = to.min(cells.len());
    for cell in cells.iter_mut().take(to).skip(from) {
        *cell = mark;
    }
}
