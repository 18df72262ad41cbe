//! The pictures: each figure's SVG is drawn by the testbed's
//! `stack-timelines` from its runs' timelines. The text primitives that
//! pictures and tables share (a number grouped by thousands, text escaped
//! for HTML or SVG) are the testbed's, re-exported here: one rule for every
//! picture of the workspace.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::cargo::run as run_command;
pub use testbed::svg::{escape, thousands};

/// Draws one figure's picture at `out`: its runs' timelines (the JSON each
/// run wrote with `--timeline`), each with its label, stacked on a shared
/// time axis by the testbed's `stack-timelines`, found among `bins`.
pub(super) fn stack(bins: &Path, out: &Path, runs: &[(&Path, &str)]) -> Result<()> {
    let mut stack = Command::new(bins.join("stack-timelines"));
    stack.arg("--out").arg(out);
    for (json, label) in runs {
        stack.arg(format!("{}={label}", json.display()));
    }
    run_command(&mut stack)
}
