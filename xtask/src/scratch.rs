//! Scratch copies of the exercises' solution crates, with other code in
//! their marked regions: what the known mistakes, mutation testing and the
//! grading of a class all build and test.
//!
//! An exercise's tests are only worth what they tell apart, so every tool
//! that judges code for an exercise runs it inside the *solution's* crate:
//! the solution's tests, its `Cargo.toml`, its other code, with only the
//! regions between `// EXERCISE-BEGIN` and `// EXERCISE-END` replaced. The
//! copies live in one workspace under `target/` whose path dependencies
//! point back into the repository, and are built into the repository's own
//! target folder, so the stages and their dependencies are compiled once.
//!
//! Such a folder is held by one run at a time ([`Scratch`]): two runs that
//! swap code into the same copies would test each other's code.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::starters::MISTAKES;

const BEGIN: &str = "// EXERCISE-BEGIN";
const END: &str = "// EXERCISE-END";

/// A scratch workspace (`target/<folder>/workspace`), held by one run at a
/// time. Its path never changes, so cargo reuses what it built there last
/// time instead of piling up a new copy of every exercise's artifacts per
/// run; the lock keeps a second run (a `cargo xtask mutants` and a
/// `check-exercises`, say) from swapping code into the first one's copies.
pub struct Scratch {
    /// The workspace's folder (not made yet: see [`fresh_dir`]).
    pub dir: PathBuf,
    lock: PathBuf,
}

impl Scratch {
    /// Takes the lock of `target/<folder>` (or the one a run that is gone
    /// left behind).
    pub fn take(root: &Path, folder: &str) -> Result<Scratch> {
        let base = root.join("target").join(folder);
        std::fs::create_dir_all(&base)?;
        let lock = base.join("lock");
        let me = std::process::id().to_string();
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(mut file) => std::io::Write::write_all(&mut file, me.as_bytes())?,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let holder = std::fs::read_to_string(&lock).unwrap_or_default();
                let holder = holder.trim();
                if !holder.is_empty() && Path::new("/proc").join(holder).exists() {
                    bail!(
                        "another run (pid {holder}) is using {}: wait for it to finish",
                        base.display()
                    );
                }
                std::fs::write(&lock, &me)?;
            }
            Err(e) => return Err(e.into()),
        }
        Ok(Scratch {
            dir: base.join("workspace"),
            lock,
        })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.lock);
    }
}

/// Makes `dir` an empty folder, removing what it held.
pub fn fresh_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir)?;
    Ok(())
}

/// Copies a crate as it is, without its `target` or its mistakes.
pub fn copy_crate(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default();
        if name == "target" || name == MISTAKES {
            continue;
        }
        if path.is_dir() {
            copy_crate(&path, &to.join(name))?;
        } else {
            std::fs::copy(&path, to.join(name))?;
        }
    }
    Ok(())
}

/// The marked regions of a crate's `src/` files, in order: the `.rs` files
/// by path (so `lib.rs` before `reactor.rs`), then by line. A known
/// mistake's `// region: N` and a hand-out's N-th `// TODO:` count the same
/// way.
pub struct Regions {
    files: Vec<Marked>,
}

/// A file, its text, and the line numbers of each region's BEGIN and END.
type Marked = (PathBuf, String, Vec<(usize, usize)>);

impl Regions {
    /// The regions of every `.rs` file under `crate_dir/src`, in path
    /// order.
    pub fn find(crate_dir: &Path) -> Result<Regions> {
        let mut paths = Vec::new();
        collect_rs(&crate_dir.join("src"), &mut paths)?;
        paths.sort();
        let mut files = Vec::new();
        for path in paths {
            let text = std::fs::read_to_string(&path)?;
            let mut spans = Vec::new();
            let mut begin = None;
            for (n, line) in text.lines().enumerate() {
                let line = line.trim_start();
                if line.starts_with(BEGIN) {
                    begin = Some(n);
                } else if line.starts_with(END)
                    && let Some(b) = begin.take()
                {
                    spans.push((b, n));
                }
            }
            if !spans.is_empty() {
                files.push((path, text, spans));
            }
        }
        Ok(Regions { files })
    }

    /// How many regions the crate has.
    pub fn len(&self) -> usize {
        self.files.iter().map(|(_, _, spans)| spans.len()).sum()
    }

    /// Whether the crate has no region at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The code inside each region, in order, as the crate has it.
    pub fn bodies(&self) -> Vec<String> {
        self.files
            .iter()
            .flat_map(|(_, text, spans)| {
                let lines: Vec<&str> = text.lines().collect();
                spans
                    .iter()
                    .map(move |&(begin, end)| {
                        lines[begin + 1..end]
                            .iter()
                            .map(|l| format!("{l}\n"))
                            .collect::<String>()
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Each region as (file, first line, last line), the lines inside the
    /// markers, counted from 1.
    pub fn spans(&self) -> impl Iterator<Item = (&Path, usize, usize)> {
        self.files.iter().flat_map(|(path, _, spans)| {
            spans
                .iter()
                .map(move |&(begin, end)| (path.as_path(), begin + 2, end))
        })
    }

    /// Runs `f` with `body` in place of region `region` (counted from 1),
    /// indented as its markers are, then puts the solution back, whatever
    /// `f` did.
    pub fn with<T>(&self, region: usize, body: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let mut bodies: Vec<Option<String>> = vec![None; self.len()];
        let slot = bodies
            .get_mut(region.wrapping_sub(1))
            .with_context(|| format!("the crate has no region {region}"))?;
        *slot = Some(body.to_owned());
        self.write(&bodies, true)?;
        let result = f();
        for (path, text, _) in &self.files {
            std::fs::write(path, text)?;
        }
        result
    }

    /// Writes `bodies` in place of the regions, one per region in order,
    /// as they are (a learner's code keeps its own indentation); the
    /// solution is not put back.
    pub fn replace_all(&self, bodies: &[String]) -> Result<()> {
        if bodies.len() != self.len() {
            bail!(
                "{} regions of code for a crate that has {}",
                bodies.len(),
                self.len()
            );
        }
        let bodies: Vec<Option<String>> = bodies.iter().cloned().map(Some).collect();
        self.write(&bodies, false)
    }

    /// Writes each file with its regions that have a body replaced by it
    /// (re-indented like the BEGIN marker if `indent`).
    fn write(&self, bodies: &[Option<String>], indent: bool) -> Result<()> {
        let mut bodies = bodies.iter();
        for (path, text, spans) in &self.files {
            let lines: Vec<&str> = text.lines().collect();
            let mut out: Vec<String> = Vec::new();
            let mut next = 0;
            let mut changed = false;
            for &(begin, end) in spans {
                let Some(Some(body)) = bodies.next() else {
                    continue;
                };
                changed = true;
                let pad = &lines[begin][..lines[begin].len() - lines[begin].trim_start().len()];
                out.extend(lines[next..=begin].iter().map(|l| l.to_string()));
                out.extend(body.lines().map(|l| match l.trim().is_empty() {
                    true => String::new(),
                    false if indent => format!("{pad}{l}"),
                    false => l.to_owned(),
                }));
                next = end;
            }
            if changed {
                out.extend(lines[next..].iter().map(|l| l.to_string()));
                std::fs::write(path, out.join("\n") + "\n")?;
            }
        }
        Ok(())
    }
}

/// Every `.rs` file under `dir`, at any depth, pushed onto `into`; none
/// if `dir` is not there.
pub fn collect_rs(dir: &Path, into: &mut Vec<PathBuf>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_rs(&path, into)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOLUTION: &str = "fn f() -> u32 {\n    // EXERCISE-BEGIN: hint\n    1\n    // EXERCISE-END\n}\nfn g() -> u32 {\n    // EXERCISE-BEGIN\n    2\n    // EXERCISE-END\n}\n";

    fn crate_dir(name: &str) -> Result<PathBuf> {
        let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src"))?;
        std::fs::write(dir.join("src/lib.rs"), SOLUTION)?;
        Ok(dir)
    }

    #[test]
    fn a_mistake_replaces_its_region_and_the_solution_comes_back() -> Result<()> {
        let dir = crate_dir("with")?;
        let regions = Regions::find(&dir)?;
        let seen = regions.with(2, "3\n", || {
            Ok(std::fs::read_to_string(dir.join("src/lib.rs"))?)
        })?;
        let after = std::fs::read_to_string(dir.join("src/lib.rs"))?;
        std::fs::remove_dir_all(&dir)?;
        assert!(
            seen.contains("    // EXERCISE-BEGIN\n    3\n    // EXERCISE-END"),
            "{seen}"
        );
        assert!(seen.contains("    1\n"), "region 1 untouched");
        assert_eq!(after, SOLUTION);
        assert!(regions.with(3, "x", || Ok(())).is_err(), "no region 3");
        Ok(())
    }

    #[test]
    fn every_region_is_replaced_as_written() -> Result<()> {
        let dir = crate_dir("all")?;
        let regions = Regions::find(&dir)?;
        assert_eq!(regions.len(), 2);
        assert_eq!(regions.bodies(), ["    1\n", "    2\n"]);
        let wrong_count = regions.replace_all(&["7".into()]);
        regions.replace_all(&["        7\n".into(), "8\n".into()])?;
        let seen = std::fs::read_to_string(dir.join("src/lib.rs"))?;
        std::fs::remove_dir_all(&dir)?;
        assert!(wrong_count.is_err(), "one body for two regions");
        assert_eq!(
            seen,
            "fn f() -> u32 {\n    // EXERCISE-BEGIN: hint\n        7\n    // EXERCISE-END\n}\nfn g() -> u32 {\n    // EXERCISE-BEGIN\n8\n    // EXERCISE-END\n}\n"
        );
        Ok(())
    }
}
