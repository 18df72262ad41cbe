//! The pictures: each figure's SVG (and page, for some) is drawn by the
//! testbed's `stack-timelines` from its runs' timelines. The text primitives that
//! pictures and tables share (a number grouped by thousands, text escaped
//! for HTML or SVG) are the testbed's, re-exported here: one rule for every
//! picture of the workspace.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::cargo::run as run_command;
pub use testbed::svg::{escape, thousands};

/// The runs in a page, for the check: the reports inlined in its data.
pub(super) fn page_reports(page: &str) -> Option<Vec<serde_json::Value>> {
    let data = page
        .split(r#"<script id="data" type="application/json">"#)
        .nth(1)?
        .split("</script>")
        .next()?;
    let data: serde_json::Value = serde_json::from_str(data).ok()?;
    let runs = data["runs"].as_array()?;
    Some(runs.iter().map(|run| run["report"].clone()).collect())
}

/// Draws one figure's picture at `out`: its runs' timelines (the JSON each
/// run wrote with `--timeline`), each with its label, stacked on a shared
/// time axis by the testbed's `stack-timelines`, found among `bins`. An
/// `out` that ends in `.html` gets the interactive page instead.
pub(super) fn stack(bins: &Path, out: &Path, runs: &[(&Path, &str)]) -> Result<()> {
    let mut stack = Command::new(bins.join("stack-timelines"));
    stack.arg("--out").arg(out);
    for (json, label) in runs {
        stack.arg(format!("{}={label}", json.display()));
    }
    run_command(&mut stack)
}
