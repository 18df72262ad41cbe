//! The list of figures: every `NAME.cmd` in the figures folder, each read
//! into its runs, and the commands a reader types to make them again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::DIR;
use crate::BadInput;

/// A figure: its name and its runs.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The name of its `.cmd` file, and of the `.svg` and `.md` made from it.
    pub name: String,
    /// Its runs, in the order they are stacked in the picture.
    pub runs: Vec<Run>,
}

/// One run of a figure.
#[derive(Debug, Clone)]
pub struct Run {
    /// The run's name in a stacked picture (`LABEL | ...`); without one, the
    /// stage's name is used.
    pub label: Option<String>,
    /// What makes the run.
    pub source: Source,
}

/// What makes a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A stage binary and its arguments.
    Command {
        /// The binary's name (`04-select`).
        bin: String,
        /// Its arguments, split on white space.
        args: Vec<String>,
    },
    /// The (only) run of another figure (`@NAME`).
    Figure(String),
}

/// The files of `dir` ending in `.EXT`, sorted by name: each one's name
/// without the ending, its path and its text.
pub(super) fn named_files(dir: &Path, ext: &str) -> Result<Vec<(String, PathBuf, String)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != ext) {
            continue;
        }
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path)?;
        found.push((name, path, text));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// Every figure in the book: each `NAME.cmd` in the figures folder. A
/// chapter adds a figure by adding its `.cmd` file; nothing here changes.
///
/// ```
/// let root = xtask::cargo::workspace_root();
/// let figures = xtask::figures::list::figures(&root.join("book/src/figures"))?;
/// let first = figures.iter().find(|f| f.name == "ch01-sync").expect("chapter 1's figure");
/// assert_eq!(first.runs.len(), 1);
/// # anyhow::Ok(())
/// ```
pub fn figures(dir: &Path) -> Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for (name, path, text) in named_files(dir, "cmd")? {
        let runs = parse_cmd(&text).with_context(|| format!("in {}", path.display()))?;
        figures.push(Figure { name, runs });
    }
    for figure in &figures {
        for run in &figure.runs {
            if let Source::Figure(other) = &run.source {
                match figures.iter().find(|f| &f.name == other) {
                    None => bail!(
                        "figure {} reuses {other}, which does not exist",
                        figure.name
                    ),
                    Some(f) if f.runs.len() != 1 || f.references().next().is_some() => bail!(
                        "figure {} reuses {other}, which is not a single run of its own",
                        figure.name
                    ),
                    Some(_) => {}
                }
            }
        }
    }
    Ok(figures)
}

/// The runs of a `.cmd` file: one a line, `BIN ARGS` or `LABEL | BIN ARGS`,
/// or `LABEL | @OTHER` for the run of figure `OTHER`; `#` starts a comment.
///
/// ```
/// use xtask::figures::list::{Source, parse_cmd};
///
/// let runs = parse_cmd("# two backends\npoll | 04-select --backend poll\nepoll | @ch04-epoll\n")?;
/// assert_eq!(runs[0].label.as_deref(), Some("poll"));
/// assert_eq!(
///     runs[0].source,
///     Source::Command { bin: "04-select".into(), args: vec!["--backend".into(), "poll".into()] }
/// );
/// assert_eq!(runs[1].source, Source::Figure("ch04-epoll".into()));
/// assert!(parse_cmd("# only a comment\n").is_err(), "a figure has at least one run");
/// # anyhow::Ok(())
/// ```
pub fn parse_cmd(text: &str) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    for line in text.lines() {
        let line = line.split_once('#').map_or(line, |(code, _)| code).trim();
        if line.is_empty() {
            continue;
        }
        let (label, command) = match line.split_once('|') {
            Some((label, command)) => (Some(label.trim().to_owned()), command.trim()),
            None => (None, line),
        };
        let source = match command.strip_prefix('@') {
            Some(other) => Source::Figure(other.trim().to_owned()),
            None => {
                let mut words = command.split_whitespace().map(str::to_owned);
                let bin = words.next().context("a run line names a binary")?;
                Source::Command {
                    bin,
                    args: words.collect(),
                }
            }
        };
        runs.push(Run { label, source });
    }
    if runs.is_empty() {
        bail!("no run");
    }
    Ok(runs)
}

impl Figure {
    pub(super) fn references(&self) -> impl Iterator<Item = &str> {
        self.runs.iter().filter_map(|run| match &run.source {
            Source::Figure(other) => Some(other.as_str()),
            Source::Command { .. } => None,
        })
    }
}

/// The figures named, with every figure that shares a run with one of
/// them: remaking one without the other would show two different runs
/// under one name. All of them when no name is given.
pub(super) fn chosen<'a>(all: &'a [Figure], names: &[String]) -> Result<Vec<&'a Figure>> {
    for name in names {
        if !all.iter().any(|f| &f.name == name) {
            let known: Vec<&str> = all.iter().map(|f| f.name.as_str()).collect();
            return Err(BadInput(format!(
                "no figure named {name}: a name is that of a .cmd file in {DIR} ({})",
                known.join(", ")
            ))
            .into());
        }
    }
    let mut set: BTreeSet<&str> = if names.is_empty() {
        all.iter().map(|f| f.name.as_str()).collect()
    } else {
        names.iter().map(String::as_str).collect()
    };
    loop {
        let before = set.len();
        for figure in all {
            let refs: Vec<&str> = figure.references().collect();
            if set.contains(figure.name.as_str()) {
                set.extend(refs);
            } else if refs.iter().any(|r| set.contains(r)) {
                set.insert(&figure.name);
            }
        }
        if set.len() == before {
            break;
        }
    }
    // Figures of their own first, so a figure that reuses one finds it.
    let mut chosen: Vec<&Figure> = all
        .iter()
        .filter(|f| set.contains(f.name.as_str()))
        .collect();
    chosen.sort_by_key(|f| f.references().next().is_some());
    Ok(chosen)
}

/// The command a reader types for each run of a figure.
pub(super) fn commands(figure: &Figure, by_name: &BTreeMap<String, String>) -> Result<Vec<String>> {
    figure
        .runs
        .iter()
        .map(|run| match &run.source {
            Source::Command { bin, args } => Ok(reader_command(bin, args)),
            Source::Figure(other) => by_name
                .get(other)
                .cloned()
                .with_context(|| format!("figure {other} has no command of its own")),
        })
        .collect()
}

/// The command of every single-run figure, by name.
pub(super) fn all_commands(root: &Path) -> Result<BTreeMap<String, String>> {
    Ok(figures(&root.join(DIR))?
        .into_iter()
        .filter_map(|f| match f.runs.as_slice() {
            [
                Run {
                    source: Source::Command { bin, args },
                    ..
                },
            ] => Some((f.name, reader_command(bin, args))),
            _ => None,
        })
        .collect())
}

/// The command a reader types for a run: a stage's binary, or a crate's
/// example (`examples/NAME` in a `.cmd`; cargo finds its crate).
///
/// ```text
/// 04-select --conns 5          cargo run --release --bin 04-select -- --conns 5
/// examples/wrong_blocking      cargo run --release --example wrong_blocking -- ...
/// ```
pub(super) fn reader_command(bin: &str, args: &[String]) -> String {
    match bin.strip_prefix("examples/") {
        Some(example) => format!(
            "cargo run --release --example {example} -- {}",
            args.join(" ")
        ),
        None => format!("cargo run --release --bin {bin} -- {}", args.join(" ")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #[test]
    fn an_example_is_run_as_an_example() {
        let args = ["--fixed".to_owned()];
        assert_eq!(
            super::reader_command("examples/wrong_blocking", &args),
            "cargo run --release --example wrong_blocking -- --fixed"
        );
        assert_eq!(
            super::reader_command("04-select", &args),
            "cargo run --release --bin 04-select -- --fixed"
        );
    }

    use super::*;

    pub(crate) fn figure() -> Figure {
        Figure {
            name: "f".into(),
            runs: parse_cmd("02-fork --items 200").expect("a valid .cmd"),
        }
    }

    #[test]
    fn cmd_files_have_labels_comments_and_references() -> Result<()> {
        let runs = parse_cmd("# two runs\nfast | 04-select --items 4 # note\n@other\n")?;
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].label.as_deref(), Some("fast"));
        assert_eq!(
            runs[0].source,
            Source::Command {
                bin: "04-select".into(),
                args: vec!["--items".into(), "4".into()]
            }
        );
        assert_eq!(runs[1].source, Source::Figure("other".into()));
        assert!(parse_cmd("# nothing\n").is_err());
        Ok(())
    }
}
