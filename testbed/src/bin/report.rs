//! `report`: rereads a recorded run from its results database, long after
//! it ended, and prints its report and writes its timeline again.
//!
//! ```text
//! cargo run -p select -- --db select.db --timeline live.html
//! cargo run -p testbed --bin report -- --db select.db --timeline again.html
//! ```
//!
//! The two pages are the same: everything a page draws is in the database
//! (the outcomes, the loop's turns, and the report and service times the
//! run kept at its end; see `testbed::store`). Before printing, the report
//! is checked against the rows the file holds now: the same number of
//! outcomes, the same failures of each kind. A file edited since says so
//! and exits 1.
//!
//! The file is only read: it is opened read-only (`testbed::store::Store::
//! open_read_only`), and a run still writing it (which holds its lock) is
//! waited for by no one: `report` says so and exits 2, as it does for a
//! missing file, a file this program did not make (`testbed::store::mark`),
//! or one that holds no run.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use testbed::cli::{
    TIMELINE_ENDINGS, check_output, parse_or_exit, print_or_report, same_file, usage_error,
};
use testbed::report::Report;
use testbed::store::{Row, Store, mark};
use testbed::timeline::{Timeline, render_for, reread};

/// Rereads a recorded run: its verified report, and its timeline.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The results database a stage wrote with `--db FILE`.
    #[arg(long, value_name = "FILE")]
    db: PathBuf,

    /// The run expected in the file (its id, printed in a later run's
    /// notes); refused if the file holds another. Any text is an id to
    /// compare, `-1` too, rather than a flag clap does not know.
    #[arg(long, value_name = "ID", allow_hyphen_values = true)]
    run: Option<String>,

    /// Writes the run's timeline: `.svg` a picture, `.html` a page,
    /// `.trace.json` Chrome's trace format, `.json` its data.
    #[arg(long, value_name = "PATH")]
    timeline: Option<PathBuf>,

    /// Prints the report as one JSON object.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    if let Err(message) = check_paths(&args) {
        return usage_error(&message);
    }
    let (timeline, verdict) = match open(&args.db, args.run.as_deref()) {
        Ok(found) => found,
        Err(message) => return usage_error(&message),
    };
    let report = &timeline.report;
    let text = if args.json {
        format!("{}\n", report.to_json())
    } else {
        report.to_string()
    };
    // A full or closed stdout is handled as every binary handles it.
    if let Err(status) = print_or_report(&text) {
        return status;
    }
    if let Some(path) = &args.timeline
        && let Err(e) = std::fs::write(path, render_for(path, &timeline, None))
    {
        eprintln!(
            "error: could not write the timeline {}: {e}",
            path.display()
        );
        return ExitCode::FAILURE;
    }
    match verdict {
        Ok(()) if report.is_sound() => ExitCode::SUCCESS,
        Ok(()) => ExitCode::FAILURE,
        Err(why) => {
            eprintln!("error: {}: {why}", args.db.display());
            ExitCode::FAILURE
        }
    }
}

/// Refuses, before anything is read or written, a `--db` that is not
/// this program's results file, and a `--timeline` that is the database
/// itself (it would be overwritten), not a regular file or a new path,
/// or has an ending that names no format.
fn check_paths(args: &Args) -> Result<(), String> {
    mark::check(&args.db)?;
    let Some(timeline) = &args.timeline else {
        return Ok(());
    };
    if same_file(&args.db, timeline) {
        return Err(format!(
            "--db and --timeline are the same file ({}): the timeline would overwrite the \
             results; give them different paths",
            timeline.display()
        ));
    }
    check_output("--timeline", timeline, TIMELINE_ENDINGS)
}

/// How long `report` waits for a run's lock to go. A run that has ended
/// can hold it a moment longer: `flock` belongs to the open file, which a
/// child forked by the run's process (between its `fork` and its `exec`)
/// shares until it execs.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Takes a shared lock on `file`, trying again for up to `patience`.
fn lock_shared_within(file: &File, patience: std::time::Duration) -> bool {
    let give_up = std::time::Instant::now() + patience;
    loop {
        if file.try_lock_shared().is_ok() {
            return true;
        }
        if std::time::Instant::now() >= give_up {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The run in `db` as a timeline, and whether its rows still agree with its
/// report; `Err` is a one-line reason the file cannot be reread at all.
fn open(db: &Path, run: Option<&str>) -> Result<(Timeline, Result<(), String>), String> {
    let name = db.display();
    let file = File::open(db).map_err(|e| format!("cannot open {name}: {e}"))?;
    // A run holds an exclusive lock on its file for its whole life (see
    // `testbed::store::DbLock`): a shared one here fails while it does.
    if !lock_shared_within(&file, LOCK_PATIENCE) {
        return Err(format!(
            "{name} is in use by a run that has not ended; wait for it to end, then run this again"
        ));
    }
    let not_results = |e: &dyn std::fmt::Display| {
        format!("{name} is not a results database written with --db ({e})")
    };
    let store = Store::open_read_only(db).map_err(|e| not_results(&e))?;
    let id = store.run_id().map_err(|e| not_results(&e))?;
    if let Some(wanted) = run
        && id.as_deref() != Some(wanted)
    {
        let held = id.as_deref().unwrap_or("a run with no id");
        return Err(format!("{name} holds {held}, not run {wanted}"));
    }
    let timeline = reread(&store)
        .map_err(|e| not_results(&e))?
        .ok_or_else(|| {
            format!(
                "{name} holds no finished run (it was interrupted, or written before runs kept \
                 their report); run the stage again with --db {name}"
            )
        })?;
    let rows = store.rows().map_err(|e| not_results(&e))?;
    let verdict = agrees(&timeline.report, &rows);
    Ok((timeline, verdict))
}

/// Whether the rows the file holds now are the ones the report counted:
/// as many outcomes, as many failures of each kind.
fn agrees(report: &Report, rows: &[Row]) -> Result<(), String> {
    let stored = report.items.saturating_sub(report.lost);
    if rows.len() as u64 != stored {
        return Err(format!(
            "the report counted {stored} outcomes, the file now holds {}: it changed since the run",
            rows.len()
        ));
    }
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    for failure in rows.iter().filter_map(|r| r.outcome.as_ref().err()) {
        *errors.entry(failure.kind.to_string()).or_insert(0) += 1;
    }
    if errors != report.errors {
        return Err(format!(
            "the report counted failures {:?}, the file now holds {errors:?}: it changed since the run",
            report.errors
        ));
    }
    Ok(())
}
