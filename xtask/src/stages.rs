//! The places a numbered stage is registered, checked: a rung added in
//! one place and forgotten in another fails `cargo test --workspace`.
//!
//! A stage folder `NN-name` holds package `name`. It must be found in the
//! root workspace's dependencies, in `bench/Cargo.toml`, in bench's
//! `CONTENDERS`, in the README's table of stages, and, through the
//! introduction's table of chapter and stage, in a chapter that
//! `book/src/SUMMARY.md` lists. A stage with a task runtime must also be
//! one of the behaviour suite's (`spec/`) runtimes.

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::cargo::workspace_root;

    /// The stages whose library is a runtime of tasks, which the
    /// behaviour suite runs its scenarios on (08's ring is not: it runs
    /// operations, not tasks).
    const TASK_RUNTIMES: &[&str] = &["06-scheduler", "07-executor"];

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Every `NN-name` folder, with its package's name.
    fn stages(root: &Path) -> Vec<(String, String)> {
        let mut stages: Vec<(String, String)> = std::fs::read_dir(root)
            .expect("the workspace root")
            .flatten()
            .filter_map(|entry| {
                let dir = entry.file_name().to_string_lossy().into_owned();
                let numbered = dir.len() > 3 && dir.as_bytes()[..2].iter().all(u8::is_ascii_digit);
                let manifest = entry.path().join("Cargo.toml");
                (numbered && dir.as_bytes()[2] == b'-' && manifest.exists()).then(|| {
                    let text = read(&manifest);
                    let name = text
                        .lines()
                        .find_map(|l| l.strip_prefix("name = \""))
                        .and_then(|l| l.strip_suffix('"'))
                        .expect("a package name")
                        .to_owned();
                    (dir, name)
                })
            })
            .collect();
        stages.sort();
        stages
    }

    /// The chapters the introduction gives for `dir` (`| 8 | `07-executor` |`).
    fn chapters_of(introduction: &str, dir: &str) -> Vec<String> {
        introduction
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                (cells.len() > 3 && cells[2] == format!("`{dir}`")).then(|| cells[1].to_owned())
            })
            .collect()
    }

    #[test]
    fn every_stage_is_registered_everywhere() {
        let root = workspace_root();
        let workspace = read(&root.join("Cargo.toml"));
        let bench = read(&root.join("bench/Cargo.toml"));
        let contenders = read(&root.join("bench/src/contenders.rs"));
        let readme = read(&root.join("README.md"));
        let introduction = read(&root.join("book/src/introduction.md"));
        let summary = read(&root.join("book/src/SUMMARY.md"));
        let spec = read(&root.join("spec/src/table.rs"));
        let stages = stages(&root);
        assert!(stages.len() >= 8, "found {stages:?}");
        let mut missing = Vec::new();
        for (dir, name) in &stages {
            let mut lacks = |place: &str, found: bool| {
                if !found {
                    missing.push(format!("{dir} (package {name}) is not in {place}"));
                }
            };
            lacks(
                "the root Cargo.toml's [workspace.dependencies]",
                workspace.contains(&format!("{name} = {{ path = \"{dir}\" }}")),
            );
            lacks(
                "bench/Cargo.toml",
                bench.contains(&format!("\n{name}.workspace = true")),
            );
            lacks(
                "bench's CONTENDERS (bench/src/contenders.rs)",
                contenders.contains(&format!("Contender::rung(\"{name}\""))
                    || contenders.contains(&format!("Contender::rung(\"{name}-"))
                    || contenders.contains(&format!("Contender::rung(\n        \"{name}")),
            );
            lacks(
                "the README's table of stages",
                readme.contains(&format!("\n| {dir} | `cargo run -p {name}` |")),
            );
            let chapters = chapters_of(&introduction, dir);
            lacks(
                "book/src/introduction.md's table of chapters and stages",
                !chapters.is_empty(),
            );
            for chapter in chapters {
                let page = format!("(ch{:0>2}-", chapter);
                lacks(
                    &format!("book/src/SUMMARY.md (chapter {chapter})"),
                    summary.contains(&page),
                );
            }
            if TASK_RUNTIMES.contains(&dir.as_str()) {
                lacks(
                    "the behaviour suite's runtimes (spec/src/table.rs)",
                    spec.contains(&format!("Arc::new({}", adapter(dir))),
                );
            }
        }
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }

    /// The suite's adapter type for a stage with a runtime.
    fn adapter(dir: &str) -> &'static str {
        match dir {
            "06-scheduler" => "Fibers06",
            "07-executor" => "Executor07",
            _ => "(none)",
        }
    }
}
