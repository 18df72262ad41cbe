//! A student's copy, read: the code in each exercise's regions, and every
//! change made outside them since the copy was handed out.
//!
//! A hand-out (`cargo xtask handout`) is a git repository with one commit:
//! one file per exercise under `exercises/`, where each region a student
//! writes lies between a `// TODO: <question>` line and an `// END TODO`
//! line, `todo!("<question>")` until then. Grading takes only what lies
//! between those lines: the tests and the `Cargo.toml` that judge it are
//! the solution's, whatever the copy's now say. That makes an edit
//! outside the regions (a test softened, a dependency added) invisible to
//! the grade, so it is reported instead: the text of each exercise file
//! outside its regions is compared with the first commit's, and every
//! other file with `git` (changed, added or deleted since that commit).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::BadInput;
pub use crate::handout::rustlings::END_TODO;
use crate::handout::rustlings::ident;

/// The line that opens a region in a hand-out (trimmed, then matched as a
/// prefix).
pub const TODO: &str = "// TODO: ";
/// What rustlings writes into the copy to remember where a student is: not
/// the student's work, never flagged.
pub(super) const RUSTLINGS_STATE: &str = ".rustlings-state.txt";

/// One student's copy.
#[derive(Debug)]
pub struct Copy {
    /// The student: the copy's folder name.
    pub student: String,
    /// The copy's folder.
    pub dir: PathBuf,
    /// The hand-out's commit, the first of the copy's history.
    pub first: String,
}

/// What a copy holds for one exercise.
#[derive(Debug, Clone, PartialEq)]
pub enum Work {
    /// Every region is as handed out.
    NotStarted,
    /// The code of every region, in order.
    Started(Vec<String>),
    /// The regions cannot be read: why.
    MarkersBroken(String),
}

/// A file's regions and the text around them.
#[derive(Debug, PartialEq)]
pub struct Split {
    /// The code strictly between each `// TODO:` and `// END TODO` line.
    pub bodies: Vec<String>,
    /// The file with every region's code left out (its marker lines kept).
    pub outside: String,
    /// The `// TODO:` line (trimmed) that opens each region.
    pub openers: Vec<String>,
    /// The line of each region's first line of code, counted from 1.
    pub starts: Vec<usize>,
}

impl Copy {
    /// Opens the copy at `dir`, or says (as bad input) why it is not one.
    pub fn open(dir: &Path) -> Result<Copy> {
        if !dir.is_dir() {
            return Err(BadInput(format!(
                "no such folder: {}; give the folders of the students' copies",
                dir.display()
            ))
            .into());
        }
        if !dir.join("info.toml").is_file() || !dir.join("exercises").is_dir() {
            return Err(BadInput(format!(
                "{} is not a students' copy (no info.toml or no exercises/): give folders made \
                 by `cargo xtask handout`",
                dir.display()
            ))
            .into());
        }
        let dir = std::path::absolute(dir)?;
        // A folder without a repository of its own would be read in the
        // history of whatever repository holds it.
        let top = git(&dir, &["rev-parse", "--show-toplevel"]).unwrap_or_default();
        if std::fs::canonicalize(top.trim()).ok() != std::fs::canonicalize(&dir).ok() {
            return Err(BadInput(format!(
                "{} is not a git repository of its own: a copy is the repository `cargo xtask \
                 handout` made, with its first commit (files without their .git: copy them over \
                 a fresh `cargo xtask handout DIR` and grade DIR)",
                dir.display()
            ))
            .into());
        }
        let first = git(&dir, &["rev-list", "--max-parents=0", "HEAD"]).map_err(|e| {
            BadInput(format!(
                "{} has no git history ({e}): a copy is the repository `cargo xtask handout` \
                 made, with its first commit",
                dir.display()
            ))
        })?;
        let first = first
            .split_whitespace()
            .last()
            .context("git rev-list printed no commit")?
            .to_owned();
        let student = dir.file_name().map_or_else(
            || "student".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok(Copy {
            student,
            dir,
            first,
        })
    }

    /// The path, in the copy, of exercise `name`'s file.
    pub fn exercise_path(name: &str) -> String {
        format!("exercises/{}.rs", ident(name))
    }

    /// What the copy holds for the exercise `name`, whose solution has
    /// `regions` regions; and whether its text outside the regions changed.
    pub fn work(&self, name: &str, regions: usize) -> Result<(Work, bool)> {
        let path = Self::exercise_path(name);
        let original = git(&self.dir, &["show", &format!("{}:{path}", self.first)])
            .with_context(|| format!("{path} is not in the hand-out's commit"))?;
        let original = split(&original).with_context(|| format!("the hand-out's {path}"))?;
        let now = match std::fs::read_to_string(self.dir.join(&path)) {
            Ok(now) => now,
            Err(e) => {
                let why = match e.kind() {
                    std::io::ErrorKind::NotFound => format!("{path} is gone"),
                    std::io::ErrorKind::InvalidData => format!("{path} is not UTF-8 text"),
                    _ => format!("{path} cannot be read: {e}"),
                };
                return Ok((Work::MarkersBroken(why), true));
            }
        };
        let now = match split_like(&now, &original.openers) {
            Ok(now) => now,
            Err(why) => return Ok((Work::MarkersBroken(why.to_string()), true)),
        };
        let outside_changed = now.outside != original.outside;
        if now.bodies.len() != regions {
            let why = format!(
                "{} regions where the exercise has {regions}",
                now.bodies.len()
            );
            return Ok((Work::MarkersBroken(why), outside_changed));
        }
        let same = |a: &String, b: &String| a.trim() == b.trim();
        let untouched = now.bodies.len() == original.bodies.len()
            && now
                .bodies
                .iter()
                .zip(&original.bodies)
                .all(|(a, b)| same(a, b));
        let work = if untouched {
            Work::NotStarted
        } else {
            Work::Started(now.bodies)
        };
        Ok((work, outside_changed))
    }

    /// The line, in the copy's file of exercise `name`, where each
    /// region's code begins (counted from 1): where a compiler error in
    /// that code is, for the teacher who opens the student's file.
    pub fn region_starts(&self, name: &str) -> Result<Vec<usize>> {
        let path = Self::exercise_path(name);
        let original = git(&self.dir, &["show", &format!("{}:{path}", self.first)])?;
        let now = std::fs::read_to_string(self.dir.join(&path))?;
        Ok(split_like(&now, &split(&original)?.openers)?.starts)
    }
}

/// Splits a hand-out's exercise file into its regions' code and the rest.
///
/// ```
/// use xtask::grade::copy::split;
///
/// let file = "fn f() -> u32 {\n    // TODO: one\n    1\n    // END TODO\n}\n";
/// let parts = split(file)?;
/// assert_eq!(parts.bodies, ["    1\n"]);
/// assert_eq!(parts.outside, "fn f() -> u32 {\n    // TODO: one\n    // END TODO\n}\n");
/// assert!(split("    // TODO: one\n}\n").is_err(), "a region must end");
/// # anyhow::Ok(())
/// ```
pub fn split(text: &str) -> Result<Split> {
    split_with(text, None)
}

/// Splits a student's exercise file whose hand-out opened its regions
/// with `openers` (the `// TODO:` lines, trimmed, in order): only those
/// lines open a region, so a `// TODO:` of the student's own, inside or
/// outside a region, is code like any other.
pub fn split_like(text: &str, openers: &[String]) -> Result<Split> {
    split_with(text, Some(openers))
}

fn split_with(text: &str, openers: Option<&[String]>) -> Result<Split> {
    let mut split = Split {
        bodies: Vec::new(),
        outside: String::new(),
        openers: Vec::new(),
        starts: Vec::new(),
    };
    let mut open: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let opens = match openers {
            None => trimmed.starts_with(TODO),
            // The next region's opener (the one after, inside a region).
            Some(openers) => openers
                .get(split.bodies.len() + usize::from(open.is_some()))
                .is_some_and(|o| o == trimmed),
        };
        match &mut open {
            None if trimmed == END_TODO => {
                bail!("line {}: `{END_TODO}` without its `// TODO:`", n + 1)
            }
            None => {
                if opens {
                    open = Some((n, String::new()));
                    split.openers.push(trimmed.to_owned());
                    split.starts.push(n + 2);
                }
                split.outside.push_str(line);
                split.outside.push('\n');
            }
            Some((begun, _)) if opens || (openers.is_none() && trimmed.starts_with(TODO)) => {
                bail!(
                    "line {}: a `// TODO:` inside the region of line {}",
                    n + 1,
                    *begun + 1
                )
            }
            Some(_) if trimmed == END_TODO => {
                split
                    .bodies
                    .push(open.take().map(|(_, b)| b).unwrap_or_default());
                split.outside.push_str(line);
                split.outside.push('\n');
            }
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    if let Some((begun, _)) = open {
        bail!(
            "line {}: a `// TODO:` never closed by `{END_TODO}`",
            begun + 1
        );
    }
    Ok(split)
}

/// `text` with each region's code replaced by `bodies`, in order (how the
/// check of grading makes its made-up students' work).
pub fn fill(text: &str, bodies: &[Option<String>]) -> Result<String> {
    let mut out = String::new();
    let mut region = 0;
    let mut skipping = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if skipping && trimmed == END_TODO {
            skipping = false;
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
        if trimmed.starts_with(TODO) {
            if let Some(Some(body)) = bodies.get(region) {
                out.push_str(body);
                if !body.ends_with('\n') {
                    out.push('\n');
                }
                skipping = true;
            }
            region += 1;
        }
    }
    if region != bodies.len() {
        bail!("{region} regions in the file, {} bodies", bodies.len());
    }
    Ok(out)
}

/// Runs git in `dir`; its stdout, or an error with its stderr.
pub(super) fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        // Never the copy's own monitor command: see `changes`.
        .args(["-c", "core.fsmonitor=false"])
        .args(args)
        .output()
        .context("cannot run git")?;
    if !output.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const HANDED_OUT: &str = "//! Two regions.\nfn f() -> u32 {\n    // TODO: one\n    todo!(\"one\")\n    // END TODO\n}\nmod m {\n    fn g() {\n        // TODO: two\n        todo!(\"two\")\n        // END TODO\n    }\n}\n";

    #[test]
    fn regions_lie_strictly_between_their_marker_lines() -> Result<()> {
        let split = split(HANDED_OUT)?;
        assert_eq!(
            split.bodies,
            ["    todo!(\"one\")\n", "        todo!(\"two\")\n"]
        );
        assert_eq!(split.starts, [4, 10], "the lines of each region's code");
        assert!(!split.outside.contains("todo!"), "{}", split.outside);
        assert!(
            split
                .outside
                .contains("        // TODO: two\n        // END TODO\n")
        );
        Ok(())
    }

    #[test]
    fn broken_markers_are_errors() {
        assert!(split("// END TODO\n").is_err(), "an end without a start");
        assert!(
            split("// TODO: a\n// TODO: b\n// END TODO\n").is_err(),
            "nested"
        );
        assert!(split("// TODO: a\nx\n").is_err(), "never closed");
    }

    #[test]
    fn a_student_s_own_todo_is_code_and_a_changed_opener_breaks_the_markers() -> Result<()> {
        let openers = split(HANDED_OUT)?.openers;
        assert_eq!(openers, ["// TODO: one", "// TODO: two"]);
        let own = HANDED_OUT.replace("todo!(\"one\")", "// TODO: tidy this\n    1");
        let parts = split_like(&own, &openers)?;
        assert_eq!(parts.bodies[0], "    // TODO: tidy this\n    1\n");
        assert!(split(&own).is_err(), "without the openers, a nested TODO");
        let reworded = HANDED_OUT.replace("// TODO: one", "// TODO: done!");
        assert!(
            split_like(&reworded, &openers).is_err(),
            "its END TODO has no start"
        );
        let unclosed = HANDED_OUT.replacen("    // END TODO\n", "", 1);
        assert!(
            split_like(&unclosed, &openers).is_err(),
            "region two opens inside one"
        );
        Ok(())
    }

    #[test]
    fn filling_regions_keeps_the_rest_and_splits_back() -> Result<()> {
        let filled = fill(HANDED_OUT, &[None, Some("        loop {}".into())])?;
        let split_back = split(&filled)?;
        assert_eq!(
            split_back.bodies,
            ["    todo!(\"one\")\n", "        loop {}\n"]
        );
        assert_eq!(split_back.outside, split(HANDED_OUT)?.outside);
        assert!(
            fill(HANDED_OUT, &[None]).is_err(),
            "one body for two regions"
        );
        Ok(())
    }

    /// A copy in a temporary folder: one exercise, `ch06-channel`, as
    /// handed out, and a README, in one commit.
    pub(crate) fn handed_out(name: &str) -> Result<PathBuf> {
        let dir = std::env::temp_dir().join(format!("xtask-copy-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("exercises"))?;
        std::fs::write(dir.join("info.toml"), "format_version = 1\n")?;
        std::fs::write(dir.join("README.md"), "read me\n")?;
        std::fs::write(dir.join(".gitignore"), "target/\n")?;
        std::fs::write(dir.join("exercises/ch06_channel.rs"), HANDED_OUT)?;
        git(&dir, &["init", "-q"])?;
        git(&dir, &["add", "-A"])?;
        git(
            &dir,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "hand-out",
            ],
        )?;
        Ok(dir)
    }

    #[test]
    fn a_copy_s_work_and_its_changes_outside_the_regions_are_found() -> Result<()> {
        let dir = handed_out("work")?;
        let copy = Copy::open(&dir)?;
        let names = ["ch06-channel".to_owned()];
        let untouched = copy.work("ch06-channel", 2)?;
        let unchanged = copy.other_changes(&names)?;

        let path = dir.join("exercises/ch06_channel.rs");
        std::fs::write(&path, fill(HANDED_OUT, &[Some("    7".into()), None])?)?;
        let started = copy.work("ch06-channel", 2)?;
        std::fs::write(
            &path,
            format!("// mine\n{}", std::fs::read_to_string(&path)?),
        )?;
        let edited = copy.work("ch06-channel", 2)?;
        let wrong_count = copy.work("ch06-channel", 3)?;
        std::fs::write(dir.join("README.md"), "changed\n")?;
        std::fs::write(dir.join("notes.txt"), "new\n")?;
        std::fs::write(dir.join(RUSTLINGS_STATE), "state\n")?;
        std::fs::create_dir_all(dir.join("target"))?;
        std::fs::write(dir.join("target/x"), "built\n")?;
        let changes = copy.other_changes(&names)?;
        std::fs::write(&path, b"\xff\xfe not text\n")?;
        let garbled = copy.work("ch06-channel", 2)?;
        std::fs::remove_file(&path)?;
        let gone = copy.work("ch06-channel", 2)?;
        let gone_listed = copy.other_changes(&names)?;
        std::fs::remove_dir_all(&dir)?;

        assert_eq!(untouched, (Work::NotStarted, false));
        assert!(unchanged.is_empty(), "{unchanged:?}");
        let bodies = vec!["    7\n".to_owned(), "        todo!(\"two\")\n".to_owned()];
        assert_eq!(started, (Work::Started(bodies.clone()), false));
        assert_eq!(edited, (Work::Started(bodies), true));
        assert!(
            matches!(wrong_count.0, Work::MarkersBroken(_)),
            "{wrong_count:?}"
        );
        assert_eq!(changes, ["README.md", "notes.txt"]);
        let broken = |work: &(Work, bool)| match &work.0 {
            Work::MarkersBroken(why) => why.clone(),
            other => format!("{other:?}"),
        };
        assert_eq!(
            broken(&garbled),
            "exercises/ch06_channel.rs is not UTF-8 text"
        );
        assert_eq!(broken(&gone), "exercises/ch06_channel.rs is gone");
        assert!(gone_listed.contains(&"exercises/ch06_channel.rs".to_owned()));
        Ok(())
    }

    #[test]
    fn a_folder_that_is_not_a_copy_is_bad_input() -> Result<()> {
        let dir = handed_out("bad")?;
        let inner = dir.join("exercises");
        std::fs::create_dir_all(inner.join("exercises"))?;
        std::fs::write(inner.join("info.toml"), "")?;
        let nested = Copy::open(&inner);
        let missing = Copy::open(&dir.join("nowhere"));
        std::fs::remove_dir_all(&dir)?;
        for result in [nested, missing] {
            let error = result.expect_err("not a copy");
            assert!(error.is::<BadInput>(), "{error}");
        }
        Ok(())
    }

    #[test]
    fn exercise_files_are_named_with_underscores() {
        assert_eq!(
            Copy::exercise_path("ch08-cancel"),
            "exercises/ch08_cancel.rs"
        );
        assert_eq!(
            Copy::exercise_path("racing-ceiling"),
            "exercises/racing_ceiling.rs"
        );
    }
}
