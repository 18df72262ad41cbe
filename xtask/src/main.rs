//! The `cargo xtask` binary: reads the command line and runs the task. The
//! tasks themselves are in the library (`lib.rs`).

use anyhow::Result;
use clap::Parser;

use xtask::cargo::workspace_root;
use xtask::cli::Cli;

fn main() -> Result<()> {
    // A bad task or flag ends here, with exit status 2 and clap's message,
    // before any task has started.
    let cli = Cli::parse();
    cli.task.run(&workspace_root())
}
