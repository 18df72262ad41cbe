//! Transcripts: a console session the book shows, made by running it.
//!
//! `book/src/figures/NAME.console` holds the session, one command a line:
//! `SHOWN | RUN` (a pipe inside `SHOWN` is written `\|`), where `SHOWN` is the command as the reader types it
//! (`cargo run --release -p select -- --conns 1100`) and `RUN` the shell
//! command that xtask runs for it, with the stage binaries, their
//! examples and the testbed's binaries first on `PATH` (`04-select
//! --conns 1100`); `$BINS` is their folder, for an example whose name a
//! binary also has (`"$BINS/examples/race"`). A line without
//! `SHOWN` (`| RUN`) runs unseen: waiting for a server to listen, say.
//! `#` starts a comment. The lines run in one `bash`, in order, so a
//! server started with `&` on one line serves the next; whatever is still
//! running at the end is stopped.
//!
//! `cargo xtask figures` writes `NAME.txt`: each shown command after `$ `,
//! then what it printed (its standard output and error, interleaved as
//! they came), between the anchors `ANCHOR: transcript` and
//! `ANCHOR_END: transcript`, which the chapter includes in a `console`
//! block. `cargo xtask figures --check` runs the session again and fails
//! if the committed transcript was edited by hand or the binaries no
//! longer print it: every line must be the same, except that numbers may
//! differ (timings are noise; each number is compared as `#`). A session
//! that disagrees is run twice more before the check fails, as a figure's
//! run is.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// A transcript: its name and its lines, `(shown, run)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// The name of its `.console` file, and of the `.txt` made from it.
    pub name: String,
    /// Each command: as shown (`None`: not shown), and as run.
    pub lines: Vec<(Option<String>, String)>,
}

/// What marks the start of a line's output in the session's output: a
/// byte no stage prints.
const MARK: char = '\u{1e}';

/// Every transcript of the figures folder `dir`: each `NAME.console`.
pub fn list(dir: &Path) -> Result<Vec<Transcript>> {
    let mut found = Vec::new();
    for (name, path, text) in super::list::named_files(dir, "console")? {
        let lines = parse(&text).with_context(|| format!("in {}", path.display()))?;
        found.push(Transcript { name, lines });
    }
    Ok(found)
}

/// The lines of a `.console` file.
///
/// ```
/// use xtask::figures::transcript::parse;
///
/// let lines = parse("# a refusal\ncargo run -p select -- --conns 1100 | 04-select --conns 1100\n| true\n")?;
/// assert_eq!(lines[0].0.as_deref(), Some("cargo run -p select -- --conns 1100"));
/// assert_eq!(lines[0].1, "04-select --conns 1100");
/// assert_eq!(lines[1], (None, "true".to_owned()));
///
/// // A pipe in the shown command is written `\|`.
/// let piped = parse("07-executor \\| grep ok | 07-executor | grep ok\n")?;
/// assert_eq!(piped[0], (Some("07-executor | grep ok".to_owned()), "07-executor | grep ok".to_owned()));
/// # anyhow::Ok(())
/// ```
pub fn parse(text: &str) -> Result<Vec<(Option<String>, String)>> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((shown, run)) =
            split(line).or_else(|| line.strip_prefix("| ").map(|run| ("", run)))
        else {
            bail!(
                "line {}: a transcript's line is `SHOWN | RUN` (or `| RUN` to run it unseen)",
                i + 1
            );
        };
        let shown = shown.trim().replace("\\|", "|");
        lines.push((
            (!shown.is_empty()).then(|| shown.to_owned()),
            run.trim().to_owned(),
        ));
    }
    if lines.iter().all(|(shown, _)| shown.is_none()) {
        bail!("a transcript shows at least one command");
    }
    Ok(lines)
}

/// A line split at its first ` | ` that is not written `\\| `: the shown
/// command, and the command run.
fn split(line: &str) -> Option<(&str, &str)> {
    let at = line
        .match_indices(" | ")
        .map(|(at, _)| at)
        .find(|&at| !line[..at].ends_with('\\'))?;
    Some((&line[..at], &line[at + 3..]))
}

/// Runs a transcript's session with the binaries of `bins` first on
/// `PATH`, and returns the text it shows: each shown command after `$ `,
/// then its output.
pub fn run(bins: &Path, transcript: &Transcript) -> Result<String> {
    let mut script = String::new();
    for (i, (_, run)) in transcript.lines.iter().enumerate() {
        // The mark keeps the status of the line before it, for `echo $?`.
        script.push_str(&format!(
            "status=$?\nprintf '\\n{MARK}{i}\\n'\n(exit $status)\n{run}\n"
        ));
    }
    // The last line's output ends at a mark too.
    script.push_str(&format!(
        "printf '\\n{MARK}{}\\n'\n",
        transcript.lines.len()
    ));
    // A server started in the background must not outlive the session.
    script.push_str("kill $(jobs -p) 2>/dev/null\nwait 2>/dev/null\ntrue\n");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths: Vec<PathBuf> = vec![bins.to_owned(), bins.join("examples")];
    paths.extend(std::env::split_paths(&path));
    let output = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1\n{script}"))
        .env("PATH", std::env::join_paths(paths)?)
        .env("BINS", bins)
        .output()
        .context("cannot run bash")?;
    let printed = String::from_utf8_lossy(&output.stdout);
    let mut shown = String::new();
    for part in printed.split(MARK).skip(1) {
        let (index, out) = part.split_once('\n').unwrap_or((part, ""));
        let index: usize = index.trim().parse().context("a mark without its line")?;
        let Some((Some(command), _)) = transcript.lines.get(index) else {
            continue;
        };
        shown.push_str(&format!("$ {command}\n"));
        // The next mark's own line break belongs to the mark.
        let out = out.strip_suffix('\n').unwrap_or(out);
        shown.push_str(out);
        if !out.is_empty() && !out.ends_with('\n') {
            shown.push('\n');
        }
    }
    Ok(shown)
}

/// The committed form of a transcript's session text.
pub fn file_text(transcript: &Transcript, shown: &str) -> String {
    format!(
        "Made by `cargo xtask figures` from {}.console: do not edit by hand.\n\
         `cargo xtask figures --check` compares it with a fresh run of the same session.\n\
         ANCHOR: transcript\n{shown}ANCHOR_END: transcript\n",
        transcript.name
    )
}

/// The session text of a committed transcript, if it has one.
pub fn committed(text: &str) -> Option<&str> {
    let start = text.find("ANCHOR: transcript\n")? + "ANCHOR: transcript\n".len();
    let end = text.find("ANCHOR_END: transcript")?;
    text.get(start..end)
}

/// A session's text with every number as `#`, and every duration as
/// `#s` (a run prints `999.8ms` where another prints `1.00s`): what two
/// runs of it share.
pub fn shape(text: &str) -> String {
    let masked = numbers_masked(text);
    let mut out = String::with_capacity(masked.len());
    let mut rest = masked.as_str();
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        for unit in ["ms", "µs", "us", "s"] {
            let Some(after) = rest.strip_prefix(unit) else {
                continue;
            };
            if !after.starts_with(|c: char| c.is_alphanumeric()) {
                out.push('s');
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `text` with every number as `#`.
fn numbers_masked(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut in_number = false;
    for (i, &c) in chars.iter().enumerate() {
        // A `.` or `,` belongs to a number only between two digits
        // (`1,970`, `218.7`), not at a sentence's end.
        let joins = (c == '.' || c == ',')
            && in_number
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        // So does a sign right before its digits (`-600`, `+1000`): a run
        // may lose either payment of a race it shows.
        let sign = (c == '-' || c == '+')
            && !in_number
            && chars.get(i + 1).is_some_and(char::is_ascii_digit)
            && !(i > 0 && chars[i - 1].is_alphanumeric());
        let digit = c.is_ascii_digit() || joins || sign;
        if digit && !in_number {
            out.push('#');
        } else if !digit {
            out.push(c);
        }
        in_number = digit;
    }
    out
}

/// Remakes the chosen transcripts in `dir`.
pub fn make(dir: &Path, bins: &Path, chosen: &[&Transcript]) -> Result<()> {
    for transcript in chosen {
        let shown = run(bins, transcript)?;
        std::fs::write(
            dir.join(format!("{}.txt", transcript.name)),
            file_text(transcript, &shown),
        )?;
        println!(
            "transcript {}: {} lines",
            transcript.name,
            shown.lines().count()
        );
    }
    Ok(())
}

/// Checks the chosen transcripts of `dir` against fresh runs; returns
/// each problem as `NAME.txt: what`.
pub fn check(dir: &Path, bins: &Path, chosen: &[&Transcript]) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    for transcript in chosen {
        let file = format!("{}.txt", transcript.name);
        let text = std::fs::read_to_string(dir.join(&file)).unwrap_or_default();
        let Some(kept) = committed(&text) else {
            problems.push(format!(
                "{file}: missing or without its transcript anchors: run `cargo xtask figures {}`",
                transcript.name
            ));
            continue;
        };
        let mut attempts = 0;
        let fresh = loop {
            attempts += 1;
            let fresh = run(bins, transcript)?;
            if shape(&fresh) == shape(kept) || attempts == 3 {
                break fresh;
            }
        };
        if let Some((line, want, got)) = first_difference(&shape(kept), &shape(&fresh)) {
            problems.push(format!(
                "{file}:{line}: the committed transcript says `{want}`, a fresh run (3 tries) \
                 prints `{got}`: run `cargo xtask figures {}` and read the chapter again",
                transcript.name
            ));
        }
    }
    Ok(problems)
}

/// The first line (1-based, within the session) where two texts differ.
fn first_difference(kept: &str, fresh: &str) -> Option<(usize, String, String)> {
    let (a, b): (Vec<&str>, Vec<&str>) = (kept.lines().collect(), fresh.lines().collect());
    (0..a.len().max(b.len())).find_map(|i| {
        let (x, y) = (
            a.get(i).copied().unwrap_or(""),
            b.get(i).copied().unwrap_or(""),
        );
        (x != y).then(|| (i + 1, x.to_owned(), y.to_owned()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(text: &str) -> Transcript {
        Transcript {
            name: "t".into(),
            lines: parse(text).expect("a valid session"),
        }
    }

    #[test]
    fn a_session_shows_its_commands_and_what_they_printed() -> Result<()> {
        let t =
            session("say hi | echo hi; echo oops >&2\n| true\nfail | (exit 3)\nstatus | echo $?\n");
        let shown = run(Path::new("/nonexistent"), &t)?;
        assert_eq!(shown, "$ say hi\nhi\noops\n$ fail\n$ status\n3\n");
        Ok(())
    }

    #[test]
    fn numbers_may_differ_and_nothing_else() {
        let kept = "$ run\n200 items in 218.7ms, 93.1% of 1,970\n";
        assert_eq!(
            shape(kept),
            shape("$ run\n200 items in 301.2ms, 88.0% of 1,899\n")
        );
        assert_ne!(
            shape(kept),
            shape("$ run\n200 items in 218.7 ms, 93.1% of 1,970\n")
        );
        // A duration may change its unit; a word after a number may not.
        assert_eq!(
            shape("after 1.00s: 197 items"),
            shape("after 999.8ms: 197 items")
        );
        assert_ne!(shape("197 items"), shape("197 itemss"));
        assert_eq!(
            shape("balance -600: a payment of +1000 was lost"),
            shape("balance 1000: a payment of -600 was lost")
        );
        assert_ne!(shape("--conns 480"), shape("-conns 480"));
        let edited = "$ run\n200 items in 218.7ms, 93.1% of 1,970, all fine\n";
        let (line, ..) = first_difference(&shape(kept), &shape(edited)).expect("a difference");
        assert_eq!(line, 2);
    }

    #[test]
    fn a_hand_edited_transcript_fails_its_check() -> Result<()> {
        let dir = std::env::temp_dir().join(format!("xtask-transcript-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let t = session("refuse | echo 'error: use --conns 480 or fewer'\n");
        make(&dir, Path::new("/nonexistent"), &[&t])?;
        assert_eq!(
            check(&dir, Path::new("/nonexistent"), &[&t])?,
            Vec::<String>::new()
        );
        let file = dir.join("t.txt");
        let text =
            std::fs::read_to_string(&file)?.replace("--conns 480 or fewer", "--backend poll");
        std::fs::write(&file, text)?;
        let problems = check(&dir, Path::new("/nonexistent"), &[&t])?;
        std::fs::remove_dir_all(&dir)?;
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("t.txt:2: the committed transcript says"),
            "{problems:?}"
        );
        Ok(())
    }

    #[test]
    fn a_line_without_its_separator_is_refused() {
        assert!(parse("04-select --conns 1100\n").is_err());
        assert!(parse("| true\n").is_err());
    }
}
