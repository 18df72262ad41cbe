//! Tidy checks that run with `cargo test --workspace`: rules of the house
//! that a reviewer should not have to remember.
//!
//! - Every Rust file starts with a `//!` comment saying what it is, so a
//!   reader who opens any file learns first what it is for
//!   (rust-analyzer's `TidyDocs` is the model).
//! - No `todo!()` or `unimplemented!()` outside the exercises (and xtask,
//!   which writes them into the starters): a stub is not done.
//! - Every shared flag and every report key is documented in `docs/`, so
//!   the reference a reader finds there cannot fall behind the code.
//! - No source, page or manifest points at a file outside the repository:
//!   a reader who follows the pointer finds nothing.

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The files under `dir` whose names end with one of `endings`, but
    /// for what is built or generated (`target`, the built book, the
    /// starters) and hidden folders.
    fn files_ending(dir: &Path, endings: &[&str], out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name == "target"
                || name.starts_with('.')
                || path.ends_with("book/starters")
                || path.ends_with("book/book")
            {
                continue;
            }
            if path.is_dir() {
                files_ending(&path, endings, out);
            } else if endings.iter().any(|e| name.ends_with(e)) {
                out.push(path);
            }
        }
    }

    fn files() -> Vec<PathBuf> {
        let mut files = Vec::new();
        files_ending(&crate::cargo::workspace_root(), &[".rs"], &mut files);
        assert!(files.len() > 10, "the walk found the workspace's files");
        files
    }

    #[test]
    fn every_rust_file_starts_with_a_module_doc() {
        let undocumented: Vec<String> = files()
            .into_iter()
            .filter(|path| {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                !text.trim_start().starts_with("//!")
            })
            .map(|path| path.display().to_string())
            .collect();
        assert!(
            undocumented.is_empty(),
            "these files lack a leading //! comment:\n{}",
            undocumented.join("\n")
        );
    }

    #[test]
    fn no_stubs_outside_the_exercises() {
        let exercises = crate::cargo::workspace_root().join("book/exercises");
        // xtask writes the starters' todo!()s, so it names the macro.
        let xtask = crate::cargo::workspace_root().join("xtask");
        let stub = ["todo!", "unimplemented!"].map(|m| format!("{m}("));
        let stubbed: Vec<String> = files()
            .into_iter()
            .filter(|path| !path.starts_with(&exercises) && !path.starts_with(&xtask))
            .filter(|path| {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                stub.iter().any(|s| text.contains(s.as_str()))
            })
            .map(|path| path.display().to_string())
            .collect();
        assert!(stubbed.is_empty(), "stubs left in:\n{}", stubbed.join("\n"));
    }

    #[test]
    fn nothing_points_outside_the_repository() {
        let root = crate::cargo::workspace_root();
        // Names of files a reader of this repository does not have (built
        // here from parts, so that this file does not name them itself).
        let outside: Vec<String> = ["STYLE", "DESIGN", "PROTOCOL"]
            .iter()
            .map(|name| format!("{name}.md"))
            .filter(|file| !root.join(file).exists())
            .chain([format!("../{}/", "shared")])
            .collect();
        let mut texts = Vec::new();
        files_ending(&root, &[".rs", ".md", ".toml"], &mut texts);
        assert!(texts.len() > 20, "the walk found the repository's files");
        let pointers: Vec<String> = texts
            .iter()
            .flat_map(|path| {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                outside
                    .iter()
                    .filter(|name| text.contains(name.as_str()))
                    .map(|name| format!("{} names {name}", path.display()))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(
            pointers.is_empty(),
            "pointers to files outside the repository:\n{}",
            pointers.join("\n")
        );
    }

    /// The `pub` fields of `struct NAME { ... }` in `text`, each with
    /// whether an attribute above it hides it (`hide = true` from the
    /// command line, `#[serde(skip)]` from the JSON).
    fn fields(text: &str, name: &str) -> Vec<(String, bool)> {
        let start = text
            .find(&format!("pub struct {name} {{"))
            .unwrap_or_else(|| panic!("no struct {name}"));
        let body = &text[start..];
        let end = body.find("\n}").expect("the struct ends");
        let mut hidden = false;
        let mut found = Vec::new();
        for line in body[..end].lines().skip(1) {
            let line = line.trim();
            if line.starts_with("#[") && (line.contains("hide = true") || line == "#[serde(skip)]")
            {
                hidden = true;
            }
            if let Some(rest) = line.strip_prefix("pub ")
                && let Some((field, _)) = rest.split_once(':')
            {
                found.push((field.to_owned(), hidden));
                hidden = false;
            }
        }
        assert!(found.len() > 5, "the walk found {name}'s fields");
        found
    }

    fn read(path: &str) -> String {
        std::fs::read_to_string(crate::cargo::workspace_root().join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn every_shared_flag_is_documented() {
        let docs = read("docs/flags.md");
        let missing: Vec<String> = fields(&read("testbed/src/cli.rs"), "Settings")
            .into_iter()
            .filter(|(_, hidden)| !hidden)
            .map(|(field, _)| format!("--{}", field.replace('_', "-")))
            .filter(|flag| !docs.contains(&format!("| `{flag}")))
            .collect();
        assert!(missing.is_empty(), "docs/flags.md lacks {missing:?}");
    }

    #[test]
    fn every_report_key_is_documented() {
        let docs = read("docs/report.md");
        let missing: Vec<String> = fields(&read("testbed/src/report.rs"), "Report")
            .into_iter()
            .filter(|(_, hidden)| !hidden)
            .map(|(field, _)| field)
            .filter(|key| !docs.contains(&format!("| `{key}` |")))
            .collect();
        assert!(missing.is_empty(), "docs/report.md lacks {missing:?}");
    }
}
