//! The `cargo xtask` binary: reads the command line and runs the task. The
//! tasks themselves are in the library (`lib.rs`).

use std::process::ExitCode;

use clap::Parser;

use xtask::BadInput;
use xtask::cargo::workspace_root;
use xtask::cli::Cli;

fn main() -> ExitCode {
    // A bad task or flag ends here, with exit status 2 and clap's message,
    // before any task has started.
    let cli = Cli::parse();
    match cli.task.run(&workspace_root()) {
        Ok(()) => ExitCode::SUCCESS,
        // Bad input found by the task itself, before it wrote anything:
        // the same status as a bad flag, and one line.
        Err(error) if error.is::<BadInput>() => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
        Err(error) => {
            eprintln!("Error: {error:?}");
            ExitCode::FAILURE
        }
    }
}
