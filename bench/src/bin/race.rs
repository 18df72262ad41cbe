//! `race`: every stage and both references on one workload, in one run.
//!
//! ```text
//! cargo run --release -p bench --bin race -- --quick
//! ```
//!
//! Prints a table (or `--json`: `{"rows": [...]}`), and writes into `--out`
//! (default `target/race/`) `race.json`, `race.md`, `race-split.md` (where
//! the time per item goes at 2 ms), the chart `race.svg`
//! and each contender's timeline under `timelines/` (one per contender:
//! its last finished round's). `--book` also writes
//! `race.md`, `race-split.md` and `race.svg` into `book/src/figures/` for the chapter
//! "Racing the stages". Progress goes to stderr.
//!
//! Before the first lap, every contender is asked whether it can run here
//! (`bench::lineup`): one named by `--only` that cannot is a usage error,
//! one of the default race is left out with a note.
//!
//! SIGINT (Ctrl-C) or SIGTERM stops the race after the lap in progress,
//! and the laps it finished are printed and written like a whole race's,
//! with one line on stderr that says so; a second signal stops it at once.
//!
//! The hidden subcommand `race contender NAME [stage flags]` runs one
//! contender in a process of its own and prints its lap as JSON: the race
//! and the benches use it for contenders that fork (see `bench::run`).
//!
//! The table goes to stdout before any file is written, so a file that
//! cannot be written costs the files, not the race's results.
//!
//! Not here: the race itself (`bench::race`, `bench::racing`); this file
//! parses flags, forks the servers while the process is single-threaded,
//! and writes files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use clap::{Parser, Subcommand};
use nix::sys::signal::Signal;
use testbed::cli::{
    Settings, parse_conns, parse_items, parse_or_exit, print_or_report, usage_error,
};
use testbed::interrupt::{Signals, exit_status};
use testbed::limits::{DescriptorNeed, fd_limits, raise_fd_limit};
use testbed::machine::MachineTicks;

use bench::contenders;
use bench::lineup::{self, Lineup};
use bench::race::{self, Race, Workloads};
use bench::racing::{self, Finished, Output, Progress};
use bench::run::{Runner, run_here};
use bench::servers::Servers;
use bench::{chart, table};

/// Race every stage of async-ladder, and threads and tokio, on one workload.
#[derive(Debug, Parser)]
#[command(name = "race", version)]
struct Args {
    /// A shorter race (half the ladder's items, a quarter of the overhead
    /// run's): about a minute.
    #[arg(long)]
    quick: bool,

    /// Print the rows as one JSON object on stdout, nothing else.
    #[arg(long)]
    json: bool,

    /// Where to write the table, the chart and the timelines (one per
    /// contender, in timelines/NAME.svg: its last finished round's).
    #[arg(long, value_name = "DIR", default_value = "target/race")]
    out: PathBuf,

    /// Also write race.md and race.svg into book/src/figures/.
    #[arg(long)]
    book: bool,

    /// Race nothing: remake the table and the chart from a race's saved
    /// race.json (into --out, and the book with --book).
    #[arg(long, value_name = "FILE")]
    replot: Option<PathBuf>,

    /// Only these contenders, comma-separated (e.g. sync,tokio-ct).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    only: Vec<String>,

    /// Run every contender this many times and show each one's median
    /// round: a shared machine is noisy. Ctrl-C or SIGTERM stops after the
    /// lap in progress and keeps the laps finished.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 3,
        value_parser = clap::value_parser!(u16).range(1..),
        allow_hyphen_values = true
    )]
    rounds: u16,

    /// Items of the latency-bound workload (1 to 10,000,000).
    #[arg(long, value_name = "N", value_parser = parse_race_items, allow_hyphen_values = true)]
    items: Option<usize>,

    /// Items of the zero-latency workload (1 to 10,000,000).
    #[arg(long, value_name = "N", value_parser = parse_race_items, allow_hyphen_values = true)]
    overhead_items: Option<usize>,

    /// Concurrency of both workloads (at least 1).
    #[arg(long, value_name = "N", value_parser = parse_conns, allow_hyphen_values = true)]
    conns: Option<usize>,

    #[command(subcommand)]
    command: Option<Hidden>,
}

#[derive(Debug, Subcommand)]
enum Hidden {
    /// Runs one contender in this process and prints its lap as JSON.
    #[command(hide = true)]
    Contender {
        /// The contender's name.
        name: String,
        /// The run's settings; `--caption` among them is the command
        /// printed under the timeline.
        #[command(flatten)]
        settings: Settings,
    },
}

/// `--items` and `--overhead-items`: the stages' bound, and at least one
/// item (a race of nothing measures nothing, and divides by it).
fn parse_race_items(s: &str) -> Result<usize, String> {
    match parse_items(s)? {
        0 => Err("expected at least 1 item: a race of nothing measures nothing".into()),
        n => Ok(n),
    }
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    if let Some(Hidden::Contender { name, settings }) = &args.command {
        return contender_main(name, settings);
    }
    if let Some(saved) = &args.replot {
        return replot(saved, &args);
    }
    // First of all, before any thread or child: SIGINT and SIGTERM become
    // data (every thread started later inherits the mask, and so do the
    // forked servers, which the race stops itself). Without the block, the
    // signals keep their default action: the race ends, and keeps nothing.
    let signals = Signals::block().ok();
    let Lineup {
        contenders,
        left_out,
    } = match lineup::choose(&args.only, lineup::available) {
        Ok(lineup) => lineup,
        Err(message) => return usage_error(&message),
    };
    for note in &left_out {
        eprintln!("note: {note}");
    }
    let workloads = workloads(&args);
    if let Err(message) = fits_descriptors(&workloads) {
        return usage_error(&message);
    }

    // First, while this process has one thread: a server for every run.
    let mut servers = match Servers::start(racing::plan(&contenders, &workloads)) {
        Ok(servers) => servers,
        Err(e) => {
            eprintln!("error: could not fork the slow servers: {e}");
            return ExitCode::FAILURE;
        }
    };
    let runner = match std::env::current_exe() {
        Ok(race_exe) => Runner { race_exe },
        Err(e) => {
            eprintln!("error: cannot find this program's path: {e}");
            return ExitCode::FAILURE;
        }
    };
    let output = Output {
        timelines: args.out.join("timelines"),
        command: command_line(),
    };
    if let Err(e) = std::fs::create_dir_all(&output.timelines) {
        eprintln!("error: cannot create {}: {e}", output.timelines.display());
        return ExitCode::FAILURE;
    }

    let stopped = Arc::new(AtomicI32::new(0));
    if let Some(signals) = signals {
        let stopped = Arc::clone(&stopped);
        std::thread::spawn(move || take_signals(&signals, &stopped));
    }
    // Runs finished, and the warnings their reports gave (`warning:`
    // lines: a poll that held the thread, a task that woke itself...).
    let (mut runs, mut warnings) = (0usize, 0usize);
    let mut progress = |event: Progress<'_>| match event {
        Progress::Starting { .. } => eprint!("{event}"),
        Progress::Finished { lap, .. } => {
            runs += 1;
            warnings += lap.report.lints.len();
            eprintln!("{event}");
        }
    };
    let stop = || stopped.load(Ordering::SeqCst) != 0;
    let ticks = MachineTicks::now();
    let finished = match racing::run(
        &contenders,
        &workloads,
        args.rounds.into(),
        &mut servers,
        &runner,
        &output,
        &mut progress,
        &stop,
    ) {
        Ok(finished) => finished,
        Err(e) => {
            eprintln!("\nerror: {e}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!(
        "race: {warnings} warning{} from the loops' reports in {runs} runs",
        if warnings == 1 { "" } else { "s" }
    );
    let signal = Signal::try_from(stopped.load(Ordering::SeqCst)).ok();
    let Finished {
        rows,
        laps,
        kept,
        counter,
        interrupted,
    } = finished;
    if interrupted && rows.is_empty() {
        eprintln!(
            "race: interrupted{} after {laps} laps, before any contender finished both \
             workloads: nothing to keep, nothing written to {}/",
            by(signal),
            args.out.display()
        );
        return interrupted_status(signal);
    }
    let race = Race {
        rows,
        workloads,
        command: output.command,
        steal: ticks.and_then(|t| MachineTicks::now()?.steal_since(t)),
        syscall_counter: counter,
        left_out,
        interrupted: interrupted.then(|| signal.map_or("a signal", Signal::as_str).to_owned()),
    };
    // What was measured goes to stdout before any file is written: a file
    // that cannot be written must not cost the race's results.
    if let Err(status) = print_race(&race, &args) {
        return status;
    }
    if let Err(e) = write_outputs(&race, &args) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    if interrupted {
        let dropped = if kept < laps {
            format!(" ({} dropped: a row needs both workloads)", laps - kept)
        } else {
            String::new()
        };
        eprintln!(
            "race: interrupted{}: {kept} of {laps} finished laps kept{dropped}, written to {}/",
            by(signal),
            args.out.display()
        );
        return interrupted_status(signal);
    }
    finish(&race, &args)
}

/// The race's signal thread: the first SIGINT or SIGTERM is stored in
/// `stopped` for the race to stop after the lap in progress; the second
/// ends the process at once, as the signal would have.
fn take_signals(signals: &Signals, stopped: &AtomicI32) {
    use std::os::fd::AsFd;

    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

    loop {
        let mut fds = [PollFd::new(signals.as_fd(), PollFlags::POLLIN)];
        // Interrupted or not, look again: `take` says whether one came.
        let _ = poll(&mut fds, PollTimeout::NONE);
        let Some(signal) = signals.take() else {
            continue;
        };
        if stopped.swap(signal as i32, Ordering::SeqCst) == 0 {
            eprintln!(
                "\nrace: {signal}: stopping after the lap in progress, then keeping the laps \
                 finished (send it again to stop at once, keeping nothing)"
            );
        } else {
            eprintln!("\nrace: {signal} again: stopped at once; nothing written");
            std::process::exit(exit_status(signal).into());
        }
    }
}

/// " by SIGTERM", or nothing when the signal is not known.
fn by(signal: Option<Signal>) -> String {
    signal.map_or(String::new(), |s| format!(" by {s}"))
}

/// A race stopped by a signal ends as a stage does: 128 + its number.
fn interrupted_status(signal: Option<Signal>) -> ExitCode {
    signal.map_or(ExitCode::FAILURE, |s| ExitCode::from(exit_status(s)))
}

/// Prints the race: a table, or `--json`. Piped into `head`, the rest of
/// the table is not wanted: not an error.
fn print_race(race: &Race, args: &Args) -> Result<(), ExitCode> {
    let text = if args.json {
        let json = serde_json::to_string(race).expect("a race is plain data and always serialises");
        format!("{json}\n")
    } else {
        format!("{}\n{}\n", table::text(race), table::legend(race))
    };
    print_or_report(&text).map(|_| ())
}

/// After the files are written: says where (not with `--json`), and
/// returns the exit status.
fn finish(race: &Race, args: &Args) -> ExitCode {
    if !args.json
        && let Err(status) = print_or_report(&format!("\nwritten to {}/\n", args.out.display()))
    {
        return status;
    }
    if race.rows.iter().all(race::Row::is_sound) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `--replot FILE`: the table and the chart of a saved race, remade.
fn replot(saved: &Path, args: &Args) -> ExitCode {
    let race: Race = match std::fs::read_to_string(saved)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(race) => race,
        Err(e) => {
            eprintln!("error: --replot {}: {e}", saved.display());
            return ExitCode::FAILURE;
        }
    };
    if let Err(why) = race.check() {
        return usage_error(&format!(
            "--replot {}: {why}; give a race.json a race wrote",
            saved.display()
        ));
    }
    if let Err(status) = print_race(&race, args) {
        return status;
    }
    if let Err(e) = write_plots(&race, args) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    finish(&race, args)
}

fn workloads(args: &Args) -> Workloads {
    let mut w = if args.quick {
        Workloads::quick()
    } else {
        Workloads::full()
    };
    if let Some(items) = args.items {
        w.latency_bound.items = items;
    }
    if let Some(items) = args.overhead_items {
        w.overhead.items = items;
    }
    if let Some(conns) = args.conns {
        w.latency_bound.conns = conns;
        w.overhead.conns = conns;
    }
    w
}

/// Checks, before any server is forked, that each workload's connections
/// fit the descriptor limit of the client (and of each server, which
/// inherits the same limit): a contender refused halfway through the race
/// would waste the rounds before it.
fn fits_descriptors(workloads: &Workloads) -> Result<(), String> {
    let _ = raise_fd_limit();
    let Ok((soft, hard)) = fd_limits() else {
        return Ok(());
    };
    for workload in [&workloads.latency_bound, &workloads.overhead] {
        let conns = workload.conns.min(workload.items) as u64;
        let need = DescriptorNeed {
            client: conns,
            server: 0,
        };
        need.check(soft, hard, conns, 1)
            .map_err(|why| format!("--conns: {why}"))?;
    }
    Ok(())
}

/// The command a reader would type to make this race again: everything but
/// where the output went.
fn command_line() -> String {
    let mut kept = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" | "--book" => {}
            "--out" => {
                args.next();
            }
            _ if arg.starts_with("--out=") => {}
            _ => kept.push(arg),
        }
    }
    let mut command = "cargo run --release -p bench --bin race".to_owned();
    if !kept.is_empty() {
        command.push_str(" -- ");
        command.push_str(&kept.join(" "));
    }
    command
}

/// `race.json`, then the table and the chart; every error names its file.
fn write_outputs(race: &Race, args: &Args) -> Result<(), String> {
    let json = serde_json::to_string_pretty(race).expect("a race always serialises");
    racing::write_file(&args.out.join("race.json"), &json)?;
    write_plots(race, args)
}

/// The table and the chart, into `--out` and, with `--book`, the book.
fn write_plots(race: &Race, args: &Args) -> Result<(), String> {
    let markdown = table::markdown(race);
    let split = table::split_markdown(race);
    let svg = chart::render(race);
    racing::write_file(&args.out.join("race.md"), &markdown)?;
    racing::write_file(&args.out.join("race-split.md"), &split)?;
    racing::write_file(&args.out.join("race.svg"), &svg)?;
    if args.book {
        let figures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src/figures");
        racing::write_file(&figures.join("race.md"), &markdown)?;
        racing::write_file(&figures.join("race-split.md"), &split)?;
        racing::write_file(&figures.join("race.svg"), &svg)?;
    }
    Ok(())
}

/// `race contender NAME ...`: one run in this fresh process, its lap on
/// stdout.
fn contender_main(name: &str, settings: &Settings) -> ExitCode {
    let Some(contender) = contenders::find(name) else {
        return usage_error(&format!("no contender '{name}'"));
    };
    let timeline = settings.timeline.as_deref();
    match run_here(contender, settings, timeline, settings.caption.as_deref()) {
        Ok(lap) => {
            let json =
                serde_json::to_string(&lap).expect("a lap is plain data and always serialises");
            if let Err(status) = print_or_report(&format!("{json}\n")) {
                return status;
            }
            if lap.report.is_sound() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {name}: {e}");
            ExitCode::FAILURE
        }
    }
}
