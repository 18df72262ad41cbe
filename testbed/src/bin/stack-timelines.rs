//! `stack-timelines`: several runs, one picture, one time axis.
//!
//! Each run is the `.json` a stage binary writes with `--timeline run.json`;
//! this draws them one above the other on a shared axis, so two models can
//! be compared lane by lane at the same scale:
//!
//! ```text
//! cargo run --release --bin 03-roundrobin -- --latency bimodal:0.1:50ms:2ms --timeline rr.json
//! cargo run --release --bin 04-select -- --latency bimodal:0.1:50ms:2ms --timeline sel.json
//! cargo run --release -p testbed --bin stack-timelines -- --out both.svg rr.json sel.json
//! ```
//!
//! A run may be given a label: `rr.json=round-robin`. With `--out
//! both.html` the runs go on one interactive page instead of a picture
//! (zoom, pan, a cursor to scrub, a tooltip per bar).
//!
//! Not here: the drawing, which is `testbed::timeline::render_stack`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use testbed::cli::{STACK_ENDINGS, check_output, parse_or_exit, same_file, usage_error};
use testbed::timeline::{Timeline, render_page, render_stack};

/// Draws several `--timeline run.json` files on one time axis.
#[derive(Parser)]
#[command(name = "stack-timelines", version)]
struct Args {
    /// Where to write: a name ending in `.svg` the picture, in `.html`
    /// the interactive page.
    #[arg(long, value_name = "PATH")]
    out: PathBuf,

    /// A command line to print under the picture.
    #[arg(long, value_name = "TEXT")]
    command: Option<String>,

    /// The runs, top to bottom: `run.json`, or `run.json=LABEL`.
    #[arg(required = true, value_name = "RUN.json[=LABEL]")]
    runs: Vec<String>,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    let runs: Vec<(String, Option<&str>)> = args
        .runs
        .iter()
        .map(|run| match run.split_once(".json=") {
            Some((stem, label)) => (format!("{stem}.json"), Some(label)),
            None => (run.clone(), None),
        })
        .collect();
    // Checked before anything is read or written: the picture must not
    // replace one of the runs it is drawn from.
    if let Some((path, _)) = runs
        .iter()
        .find(|(path, _)| same_file(Path::new(path), &args.out))
    {
        return usage_error(&format!(
            "--out {} is also an input ({path}): the SVG would overwrite it; write the \
             picture elsewhere (e.g. --out stack.svg)",
            args.out.display()
        ));
    }
    // A FIFO would wait for a reader for ever, a device swallow the picture;
    // an unknown ending would get an SVG it did not ask for.
    if let Err(message) = check_output("--out", &args.out, STACK_ENDINGS) {
        return usage_error(&message);
    }
    let mut timelines = Vec::new();
    for (path, label) in runs {
        let timeline = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| serde_json::from_str::<Timeline>(&text).map_err(|e| e.to_string()));
        match timeline {
            Ok(mut timeline) => {
                if let Some(label) = label {
                    timeline.label = label.to_owned();
                }
                timelines.push(timeline);
            }
            Err(e) => {
                eprintln!("error: {path}: not a timeline written with --timeline RUN.json: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let html = args.out.extension().is_some_and(|e| e == "html");
    let drawn = if html {
        render_page(&timelines)
    } else {
        render_stack(&timelines, args.command.as_deref())
    };
    if let Err(e) = std::fs::write(&args.out, drawn) {
        eprintln!("error: could not write {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
