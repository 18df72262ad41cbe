//! What a student changed outside the marked regions: every file of the
//! copy that differs from the hand-out's commit.
//!
//! The comparison reads git's objects (`ls-tree`, `cat-file`) and the
//! files themselves, and never asks `git status` or `git diff`: those
//! refresh git's view of the working tree, which runs what the copy's own
//! `.git/config` and attributes name (an `fsmonitor` command, a clean
//! filter), so a handed-in copy could run a command of its choosing
//! before any limit applies. Reading the files also makes the answer
//! independent of the copy's index (`--skip-worktree`), its ignore lists
//! and its line endings: a copy zipped on Windows has CRLF everywhere,
//! and is not changed for that.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::copy::{Copy, RUSTLINGS_STATE, git};

impl Copy {
    /// The files changed, added or deleted since the hand-out's commit,
    /// other than the exercise files in `exercises` (which are judged by
    /// their text outside the regions) and what builds and rustlings
    /// write.
    pub fn other_changes(&self, exercises: &[String]) -> Result<Vec<String>> {
        let own: Vec<String> = exercises.iter().map(|e| Self::exercise_path(e)).collect();
        let listing = git(
            &self.dir,
            &["ls-tree", "-r", "-z", "--name-only", &self.first],
        )?;
        let handed: Vec<&str> = listing.split('\0').filter(|p| !p.is_empty()).collect();
        let originals = blobs(&self.dir, &self.first, &handed)?;
        let mut changed: Vec<String> = Vec::new();
        for (path, original) in handed.iter().zip(&originals) {
            let now = std::fs::read(self.dir.join(path));
            if !now.is_ok_and(|now| same_text(&now, original)) {
                changed.push((*path).to_owned());
            }
        }
        let mut ignores = Ignores::default();
        for (path, original) in handed.iter().zip(&originals) {
            if let Some(dir) = path.strip_suffix(".gitignore")
                && (dir.is_empty() || dir.ends_with('/'))
            {
                ignores.add(dir, &String::from_utf8_lossy(original));
            }
        }
        let handed: BTreeSet<&str> = handed.into_iter().collect();
        let mut present = Vec::new();
        files(&self.dir, "", &ignores, &mut present)?;
        changed.extend(present.into_iter().filter(|p| !handed.contains(p.as_str())));
        let ignored = |path: &String| {
            path.starts_with("target/")
                || path == RUSTLINGS_STATE
                || (own.contains(path) && self.dir.join(path).is_file())
        };
        changed.retain(|path| !ignored(path));
        changed.sort();
        changed.dedup();
        Ok(changed)
    }
}

/// Whether two files hold the same text, line endings aside.
fn same_text(a: &[u8], b: &[u8]) -> bool {
    let lf = |bytes: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        for (i, &byte) in bytes.iter().enumerate() {
            if !(byte == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
                out.push(byte);
            }
        }
        out
    };
    a == b || lf(a) == lf(b)
}

/// The contents of `paths` at `commit`, in order, through one `git
/// cat-file --batch`.
fn blobs(dir: &Path, commit: &str, paths: &[&str]) -> Result<Vec<Vec<u8>>> {
    if paths.iter().any(|p| p.contains('\n')) {
        bail!("a file name of the hand-out's commit holds a line break");
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("cannot run git")?;
    let requests: String = paths.iter().map(|p| format!("{commit}:{p}\n")).collect();
    let mut stdin = child.stdin.take().context("git cat-file has no stdin")?;
    // Written from a thread: git answers while it reads, and a pipe full
    // both ways would stop both.
    let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
    let mut out = BufReader::new(child.stdout.take().context("git cat-file has no stdout")?);
    let mut contents = Vec::with_capacity(paths.len());
    for path in paths {
        let mut header = String::new();
        out.read_line(&mut header)?;
        // `<id> blob <size>`, or `<name> missing`.
        let size: usize = match header.trim_end().rsplit_once(' ') {
            Some((kind, size)) if kind.ends_with(" blob") => size.parse()?,
            _ => bail!("git cat-file has no blob for {path}: {}", header.trim_end()),
        };
        let mut blob = vec![0; size + 1];
        out.read_exact(&mut blob)?;
        blob.pop(); // the newline after each object
        contents.push(blob);
    }
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("writing to git cat-file panicked"))??;
    child.wait()?;
    Ok(contents)
}

/// Every file under `dir`, as a path relative to the copy's top with `/`
/// between names, pushed onto `into`; `.git` and `target` at the top, and
/// what the hand-out's ignore rules name, are left out. Links are listed,
/// never followed.
fn files(dir: &Path, prefix: &str, ignores: &Ignores, into: &mut Vec<String>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if prefix.is_empty() && (name == ".git" || name == "target") {
            continue;
        }
        let path = format!("{prefix}{name}");
        let is_dir = entry.file_type()?.is_dir();
        if ignores.ignore(&path, is_dir) {
            continue;
        }
        if is_dir {
            files(&entry.path(), &format!("{path}/"), ignores, into)?;
        } else {
            into.push(path);
        }
    }
    Ok(())
}

/// The ignore rules of the hand-out's commit: each `.gitignore` it holds
/// names what builds, runs and tools write in a copy (`/target`, the
/// results' `*.db`, the browser tests' `node_modules`). Read from the
/// commit, never from the copy, whose own rules a student could extend
/// to hide a file. The patterns are git's simple ones: `*` and `?` within
/// a name, a leading `/` (or a `/` inside) anchoring to the rules' folder,
/// a trailing `/` for folders only; negations (`!`) are not followed, so
/// a file they would bring back is left out.
#[derive(Default)]
struct Ignores(Vec<Rule>);

/// One pattern of a `.gitignore` in the folder `base` (`""` or `a/b/`).
struct Rule {
    base: String,
    glob: String,
    anchored: bool,
    folders_only: bool,
}

impl Ignores {
    /// Adds the rules of the `.gitignore` in the folder `base`.
    fn add(&mut self, base: &str, text: &str) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            let folders_only = line.ends_with('/');
            let line = line.trim_end_matches('/');
            let anchored = line.contains('/');
            self.0.push(Rule {
                base: base.to_owned(),
                glob: line.trim_start_matches('/').to_owned(),
                anchored,
                folders_only,
            });
        }
    }

    /// Whether `path` (relative to the copy's top) is ignored.
    fn ignore(&self, path: &str, is_dir: bool) -> bool {
        self.0.iter().any(|rule| {
            let Some(within) = path.strip_prefix(rule.base.as_str()) else {
                return false;
            };
            let name = within.rsplit('/').next().unwrap_or(within);
            (is_dir || !rule.folders_only)
                && glob(&rule.glob, if rule.anchored { within } else { name })
        })
    }
}

/// Whether `text` matches `pattern`, whose `*` stands for any run of
/// characters but `/`, and `?` for one character.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // The classic two-pointer match, going back to the last `*` on a miss.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' && t[j] != '/' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star.filter(|&(_, sj)| t[sj] != '/') {
            star = Some((si, sj + 1));
            i = si + 1;
            j = sj + 1;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::copy::tests::handed_out;

    #[test]
    fn the_copy_s_git_settings_neither_run_nor_hide_a_change() -> Result<()> {
        let dir = handed_out("changes")?;
        let copy = Copy::open(&dir)?;
        let ran = dir.join("monitor-ran");
        git(
            &dir,
            &[
                "config",
                "core.fsmonitor",
                &format!("touch {}", ran.display()),
            ],
        )?;
        std::fs::write(dir.join("README.md"), "read me\r\n")?;
        std::fs::write(dir.join("info.toml"), "format_version = 2\n")?;
        git(&dir, &["update-index", "--skip-worktree", "info.toml"])?;
        std::fs::write(dir.join(".git/info/exclude"), "notes.txt\n")?;
        std::fs::write(dir.join("notes.txt"), "mine\n")?;
        std::fs::remove_file(dir.join(".gitignore"))?;
        let changes = copy.other_changes(&["ch06-channel".to_owned()])?;
        let monitor_ran = ran.exists();
        std::fs::remove_dir_all(&dir)?;
        assert!(!monitor_ran, "the copy's fsmonitor command ran");
        assert_eq!(
            changes,
            [".gitignore", "info.toml", "notes.txt"],
            "CRLF is no change; skip-worktree and exclude hide none"
        );
        Ok(())
    }

    #[test]
    fn the_hand_out_s_ignore_rules_leave_out_what_tools_write() {
        let mut ignores = Ignores::default();
        ignores.add(
            "",
            "/target\n/book/book\n*.db\n# a comment\n/testbed/tests/browser/node_modules\n",
        );
        ignores.add("book/", "cache/\n");
        let ignored = |path: &str, is_dir: bool| ignores.ignore(path, is_dir);
        assert!(ignored("testbed/tests/browser/node_modules", true));
        assert!(ignored("results.db", false) && ignored("01-sync/runs.db", false));
        assert!(ignored("book/book", true) && ignored("book/cache", true));
        assert!(!ignored("book/cache", false), "a folders-only rule");
        assert!(!ignored("results.db.txt", false) && !ignored("notes.txt", false));
        assert!(!ignored("src/book/book", true), "an anchored rule");
        assert!(glob("a*c", "abbc") && glob("a?c", "abc") && !glob("a*c", "ab/c"));
    }

    #[test]
    fn line_endings_alone_are_no_change() {
        assert!(same_text(b"a\r\nb\r\n", b"a\nb\n"));
        assert!(same_text(b"a\nb\n", b"a\nb\n"));
        assert!(!same_text(b"a\nb\n", b"a\nc\n"));
        assert!(!same_text(b"a\rb\n", b"a\nb\n"), "a lone CR is a change");
    }
}
