//! `--watch`: a live view of the run in the terminal, while it goes on.
//!
//! A progress bar says how far a run has got. The view says what it is
//! doing: which item each connection carries and in which phase (in
//! service at the server, or replied and waiting for the client to read),
//! how many items are done, failed and in flight, the throughput with its
//! recent history against Little's ideal, the event loop's last wake-ups
//! when the stage records them, and the watchdog's message the moment the
//! run stalls.
//!
//! Nothing in a stage knows about the view. It reads what the harness
//! already has, several times a second, on a thread of its own:
//!
//! - the [`Progress`] count every store ticks (recorded, failed);
//! - the embedded server's [`Board`]: each open connection's last request
//!   line, and the server's counts (items started, mean service time);
//! - a [`WakeFeed`], the loop's record of its wake-ups: [`LoopTap`] reads
//!   the turns every event loop's `TurnLog` shares while the run goes on
//!   (the panel says "no loop recording" for a stage without a loop);
//! - the watchdog's lines, which [`Progress::say`] hands to the view
//!   instead of printing them over it.
//!
//! Stopping is the interrupt's business, not the view's: `q` or Ctrl-C
//! gives the terminal back and sends this process SIGINT, which the
//! watchdog's thread takes exactly as it takes a Ctrl-C without the view
//! ([`crate::interrupt`]): recording stops, the account and the report of
//! what was recorded are printed, the database is left consistent. Any end
//! of the run goes through [`Progress::finish`], which ends the view and
//! gives the terminal back before a word is printed.
//!
//! In this folder: `state.rs` (what the view knows, no terminal), `draw.rs`
//! (one frame), `terminal.rs` (taking the terminal and giving it back).

mod draw;
mod state;
mod terminal;

use std::fmt;
use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

pub use draw::draw;
pub use state::{App, ConnNow, Sample, Setup, WINDOW, Wake};

use crate::cli::Settings;
use crate::progress::{Progress, Screen};
use crate::server::Board;
use crate::stage::Stage;

/// How often the view samples and redraws: smooth to the eye, and a few
/// hundred small reads a minute, which no run notices.
const TICK: Duration = Duration::from_millis(100);

/// How many wake-ups the view asks for: more than its panel shows.
const WAKES: usize = 64;

/// The event loop's record of its wake-ups, read while the run goes on.
pub trait WakeFeed: Send + Sync + fmt::Debug {
    /// The last `n` wake-ups (fewer if there were fewer), oldest first;
    /// `None` when the stage records none (it has no event loop).
    fn last(&self, n: usize) -> Option<Vec<Wake>>;
}

/// The loop's wake-ups as its [`crate::turns::TurnLog`] shares them while
/// the run goes on ([`crate::turns::live`]), timed from when the view
/// started.
#[derive(Debug)]
pub struct LoopTap {
    epoch: Instant,
}

impl LoopTap {
    /// Switches the sharing on and starts the clock.
    pub fn start() -> LoopTap {
        crate::turns::live::enable();
        LoopTap {
            epoch: Instant::now(),
        }
    }
}

impl WakeFeed for LoopTap {
    fn last(&self, n: usize) -> Option<Vec<Wake>> {
        let turns = crate::turns::live::recent(n)?;
        Some(
            turns
                .into_iter()
                .map(|turn| Wake {
                    at: turn.woke.saturating_duration_since(self.epoch),
                    slept: turn.slept,
                    ready: turn.ready,
                    timers: turn.timers,
                    then: then(&turn),
                })
                .collect(),
        )
    }
}

/// What a turn did after it woke, in a few words.
fn then(turn: &crate::turns::LiveTurn) -> String {
    let mut words = Vec::new();
    if turn.ran > 0 {
        words.push(format!("ran {}", turn.ran));
    }
    if turn.done > 0 {
        words.push(format!("finished {}", turn.done));
    }
    words.push(format!("worked {}us", turn.busy.as_micros()));
    words.join(", ")
}

/// Where the view's samples come from.
#[derive(Debug, Clone)]
pub struct Feeds {
    /// The count the stores tick.
    pub progress: Progress,
    /// The embedded server, when it runs in this process.
    pub board: Option<Board>,
    /// The loop's wake-ups, when the stage records them.
    pub wakes: Option<Arc<dyn WakeFeed>>,
}

impl Feeds {
    /// What the harness has: the run's count and its server. The loop's
    /// wake-ups join with [`Feeds::wakes`].
    pub fn new(progress: &Progress, board: Option<Board>) -> Feeds {
        Feeds {
            progress: progress.clone(),
            board,
            wakes: None,
        }
    }

    /// Reads the loop's wake-ups from `feed`.
    pub fn wakes(self, feed: Arc<dyn WakeFeed>) -> Feeds {
        Feeds {
            wakes: Some(feed),
            ..self
        }
    }

    /// What the run looks like now, `at` since the view started.
    pub fn sample(&self, at: Duration) -> Sample {
        let now = Instant::now();
        let (connections, started, service) = match &self.board {
            None => (Vec::new(), 0, None),
            Some(board) => {
                let stats = board.stats();
                let connections = board
                    .connections()
                    .into_iter()
                    .map(|serving| ConnNow {
                        port: serving.port,
                        item: serving.id,
                        phase: serving.phase,
                        since: now
                            .saturating_duration_since(serving.done.unwrap_or(serving.received)),
                        in_service: serving.done.is_none(),
                        fault: serving.fault,
                    })
                    .collect();
                // An item starts with its first line: GET, or HEAD.
                let started = stats.requests.get + stats.requests.head;
                (connections, started, stats.mean_service_time())
            }
        };
        Sample {
            at,
            recorded: self.progress.recorded(),
            failed: self.progress.failed(),
            started,
            service,
            connections,
            wakes: self.wakes.as_ref().and_then(|feed| feed.last(WAKES)),
        }
    }
}

/// Whether to show the view for this run: `--watch` was given, and the
/// view can work. When it cannot, says why on stderr in one line; the run
/// goes on with the usual progress line.
pub fn wanted(stage: &dyn Stage, settings: &Settings) -> bool {
    if !settings.watch {
        return false;
    }
    match refusal(stage, io::stdout().is_terminal()) {
        Some(why) => {
            eprintln!("--watch: {why}");
            false
        }
        None => true,
    }
}

/// Why the view cannot show this stage, and what the run does instead, if
/// it cannot.
fn refusal(stage: &dyn Stage, stdout_is_terminal: bool) -> Option<String> {
    if stage.forks() {
        // The view is a thread, and a process that forks stays
        // single-threaded; its workers' counts are in other processes.
        Some(format!(
            "{}'s workers are processes of their own, which the view cannot watch; the run \
             goes on without it",
            stage.name()
        ))
    } else if !stdout_is_terminal {
        Some(
            "standard output is not a terminal; the run goes on with the usual progress line"
                .to_owned(),
        )
    } else {
        None
    }
}

/// Starts the view on this terminal and attaches it to `feeds.progress`,
/// which finishes it when the run ends. If the terminal cannot be taken,
/// says so in one line and the run goes on without it.
pub fn start(setup: Setup, feeds: Feeds) {
    let progress = feeds.progress.clone();
    match View::start(setup, feeds) {
        Ok(view) => {
            // A fresh run's progress has no screen yet.
            let _ = progress.show_on(Arc::new(view));
        }
        Err(e) => eprintln!("--watch: the terminal cannot show the view ({e}); going on"),
    }
}

/// The running view: its thread, and what the watchdog said.
#[derive(Debug)]
pub struct View {
    stop: Arc<AtomicBool>,
    said: Arc<Mutex<Vec<String>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl View {
    fn start(setup: Setup, feeds: Feeds) -> io::Result<View> {
        let mut tty = terminal::take()?;
        let stop = Arc::new(AtomicBool::new(false));
        let said = Arc::new(Mutex::new(Vec::new()));
        let thread = thread::Builder::new().name("watch".into()).spawn({
            let (stop, said) = (Arc::clone(&stop), Arc::clone(&said));
            move || {
                // Whatever ends this thread, a panic too, gives the
                // terminal back.
                let _restore = Restore;
                show(&mut tty, App::new(setup), &feeds, &stop, &said);
            }
        });
        let thread = match thread {
            Ok(thread) => thread,
            Err(e) => {
                terminal::restore();
                return Err(e);
            }
        };
        Ok(View {
            stop,
            said,
            thread: Mutex::new(Some(thread)),
        })
    }
}

impl Screen for View {
    fn say(&self, line: &str) {
        lock(&self.said).push(line.to_owned());
    }

    /// Ends the view, gives the terminal back, and prints what the
    /// watchdog said during the run, so that it stays on record.
    fn finish(&self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = lock(&self.thread).take() {
            // A panic in the view has been printed; the run is unharmed.
            let _ = thread.join();
        }
        terminal::restore();
        for line in lock(&self.said).drain(..) {
            eprintln!("{line}");
        }
    }
}

/// Gives the terminal back when dropped.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        terminal::restore();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Each critical section is one push, one take or one read.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The view's thread: sample, draw, look for a key, until told to stop.
fn show(
    tty: &mut terminal::Tty,
    mut app: App,
    feeds: &Feeds,
    stop: &AtomicBool,
    said: &Mutex<Vec<String>>,
) {
    let started = Instant::now();
    let mut heard = 0;
    while !stop.load(Ordering::SeqCst) {
        app.observe(feeds.sample(started.elapsed()));
        {
            let said = lock(said);
            if said.len() > heard {
                heard = said.len();
                app.stall(&said[heard - 1]);
            }
        }
        if tty.draw(|frame| draw(frame, &app)).is_err() {
            // The terminal went away: the run goes on, unseen.
            return;
        }
        match terminal::stop_pressed(TICK) {
            Ok(false) => {}
            Ok(true) => {
                // The terminal first: the account of the interrupted run
                // is printed next, and must land on the shell's screen.
                terminal::restore();
                let _ = kill(Pid::this(), Signal::SIGINT);
                return;
            }
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests;
