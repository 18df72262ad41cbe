//! The pictures: each figure's SVG is drawn by the testbed's
//! `stack-timelines` from its runs' timelines; and the few text primitives
//! that pictures and tables share (a number grouped by thousands, text
//! escaped for HTML or SVG), kept in this one file.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::cargo::run as run_command;

/// A number rounded to a whole, grouped by three: `12,345`.
///
/// ```
/// use xtask::figures::svg::thousands;
///
/// assert_eq!(thousands(1_905.4), "1,905");
/// assert_eq!(thousands(999.5), "1,000");
/// assert_eq!(thousands(-3.0), "0", "a count is never negative");
/// ```
pub fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Text escaped for HTML or SVG, where `&`, `<`, `>` and `"` are markup.
///
/// ```
/// assert_eq!(xtask::figures::svg::escape(r#"a < b && "c""#), "a &lt; b &amp;&amp; &quot;c&quot;");
/// ```
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_three() {
        assert_eq!(thousands(1_905.4), "1,905");
        assert_eq!(thousands(12.0), "12");
    }
}
