//! The behaviour suite's figures: the table of every behaviour against
//! every runtime, and one scenario's traces on the one-thread runtimes side
//! by side. `runtime-spec` prints both as Markdown; they are not stage
//! runs, so they have no `.cmd` file and no data line, and are listed here.
//!
//! `cargo xtask figures` writes them; `--check` runs the suite again and
//! compares: the verdicts, the reasons and the events must be the same,
//! the times (`@12 ms`) may not be, since a busy machine is late, never
//! early, and the suite checks only the lower bounds. A run that fails a
//! scenario makes no figure.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::DIR;

/// One of the suite's figures: its name and `runtime-spec`'s arguments.
#[derive(Debug, Clone, Copy)]
pub(super) struct SpecFigure {
    /// `book/src/figures/NAME.md`.
    pub(super) name: &'static str,
    /// What `runtime-spec` is run with.
    pub(super) args: &'static [&'static str],
}

/// The suite's figures: chapters 6 and 8 include the table, chapter 8 the
/// traces.
pub(super) const FIGURES: &[SpecFigure] = &[
    SpecFigure {
        name: "spec-table",
        args: &["--all", "--markdown"],
    },
    SpecFigure {
        name: "spec-traces",
        args: &["--traces", "timers-of-several-tasks-interleave"],
    },
];

/// How many fresh runs a figure gets before a difference counts: a loaded
/// machine can be late enough to swap two timers' tasks on tokio.
const ATTEMPTS: u32 = 3;

/// Is `name` one of the suite's figures?
pub(super) fn is_spec(name: &str) -> bool {
    FIGURES.iter().any(|f| f.name == name)
}

/// The suite's figures among `names`; all of them when `names` is empty.
pub(super) fn chosen(names: &[String]) -> Vec<SpecFigure> {
    FIGURES
        .iter()
        .filter(|f| names.is_empty() || names.iter().any(|n| n == f.name))
        .copied()
        .collect()
}

/// The command a reader types to see the same thing.
fn command(figure: &SpecFigure) -> String {
    format!("cargo run -p runtime-spec -- {}", figure.args.join(" "))
}

/// Runs `runtime-spec` (from `bins`) and returns the figure's Markdown.
fn render(bins: &Path, figure: &SpecFigure) -> Result<String> {
    let path = bins.join("runtime-spec");
    let output = Command::new(&path)
        .args(figure.args)
        .output()
        .with_context(|| format!("cannot run runtime-spec at {}", path.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "runtime-spec {} failed ({}): a figure shows a passing suite\n{stdout}{}",
            figure.args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(format!(
        "<!-- Made by `cargo xtask figures` from `{}`: remake it, do not edit it. -->\n\n{}\n\n<p class=\"figure-command\"><code>{}</code></p>\n",
        command(figure),
        stdout.trim_end(),
        command(figure)
    ))
}

/// The text without its times: every `@N ms` becomes `@… ms`.
///
/// ```text
/// "b woke @26 ms | b woke @31 ms"  ->  "b woke @… ms | b woke @… ms"
/// ```
fn without_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with(" ms") {
            out.push('…');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// `cargo xtask figures`: writes the chosen figures.
pub(super) fn make(root: &Path, bins: &Path, chosen: &[SpecFigure]) -> Result<()> {
    for figure in chosen {
        let text = render(bins, figure)?;
        std::fs::write(root.join(DIR).join(format!("{}.md", figure.name)), text)?;
        println!("figure {}: {}", figure.name, command(figure));
    }
    Ok(())
}

/// `cargo xtask figures --check`: the problems of the chosen figures, each
/// a line; none if each agrees with a fresh run (times aside).
pub(super) fn check(root: &Path, bins: &Path, chosen: &[SpecFigure]) -> Vec<String> {
    let mut problems = Vec::new();
    for figure in chosen {
        let path = root.join(DIR).join(format!("{}.md", figure.name));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let mut attempts = 0;
        let found = loop {
            attempts += 1;
            let found = match render(bins, figure) {
                Ok(fresh) if without_times(&fresh) == without_times(&committed) => None,
                Ok(fresh) => {
                    let line = fresh
                        .lines()
                        .zip(committed.lines())
                        .position(|(a, b)| without_times(a) != without_times(b))
                        .unwrap_or_else(|| fresh.lines().count().min(committed.lines().count()));
                    Some(format!(
                        "a fresh run of `{}` differs from it at line {} (times aside)",
                        command(figure),
                        line + 1
                    ))
                }
                Err(e) => Some(format!("{e:#}")),
            };
            if found.is_none() || attempts == ATTEMPTS {
                break found;
            }
        };
        match found {
            None => println!("figure {}: ok", figure.name),
            Some(problem) => {
                println!("figure {}: FAILED", figure.name);
                problems.push(format!("{}: {problem}", figure.name));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_set_aside_and_nothing_else() {
        assert_eq!(
            without_times("| b woke @26 ms | a @3 ms | mail@host | @ ms | @7 s |"),
            "| b woke @… ms | a @… ms | mail@host | @ ms | @7 s |"
        );
    }

    #[test]
    fn the_suites_figures_are_chosen_by_name_or_all() {
        assert_eq!(chosen(&[]).len(), FIGURES.len());
        let one = chosen(&["spec-traces".to_owned()]);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].name, "spec-traces");
        assert!(is_spec("spec-table") && !is_spec("ch01-sync"));
    }
}
