//! A real browser for the timeline page's tests: headless Chromium.
//!
//! The page ([`crate::timeline::render_page`]) is drawn by its script, so
//! a test of the page must run the script: [`load`] opens a page file in
//! headless Chromium and returns the document as the script left it
//! (`--dump-dom`). Errors the script raised are in that document (the page
//! writes them into `#errors` and marks `<body data-errors>`), so a test
//! reads them there rather than in Chromium's log.
//!
//! Chromium is not a Rust dependency: where it is not installed, [`load`]
//! prints why the test skips and returns `None` (CI installs it).
//!
//! What a reader does with the page (hover, tap, pinch, keys, the frame
//! times of a large run) needs a browser driven event by event:
//! `tests/browser/page.py` does that with Playwright.
//!
//! ```no_run
//! use std::path::Path;
//! use testbed::browser::{count, load};
//!
//! if let Some(dom) = load(Path::new("/tmp/select.html"), "t=12.5ms") {
//!     assert_eq!(count(&dom, r#"class="run-readout""#), 1);
//! }
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tempfile::TempDir;

use crate::testing::run_command;

/// How long Chromium may take to start, load a page and run its script on
/// a busy machine.
const DEADLINE: Duration = Duration::from_secs(90);

/// The flags every headless run of Chromium here takes: no window, no
/// sandbox (it runs as root in CI), no GPU, and none of the background
/// services (updates, sync, field trials) whose connections a machine
/// without a network refuses, many at a time. The profile directory is
/// the caller's (`--user-data-dir`), fresh for each run.
pub const HEADLESS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

/// The Chromium on `PATH`, if any (`chromium` on Debian, `chromium-browser`
/// elsewhere).
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

/// Loads the page at `page` with `fragment` after its `#` (`t=12.5ms`, or
/// empty) in headless Chromium, and returns the document after its script
/// ran; `None`, after printing why, when Chromium is not installed.
///
/// # Panics
///
/// When Chromium fails or outlives `DEADLINE`.
#[track_caller]
pub fn load(page: &Path, fragment: &str) -> Option<String> {
    let (command, _profile) = chromium_at(page, fragment, &["--dump-dom"])?;
    let output = run_command(command, DEADLINE);
    assert!(
        output.status.success(),
        "chromium could not load {}: {}",
        page.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Saves a picture of the page, `width` pixels wide, at `png` (for a person
/// to look at); `false`, after printing why, when Chromium is not installed.
#[track_caller]
pub fn screenshot(page: &Path, fragment: &str, width: u32, png: &Path) -> bool {
    let shot = format!("--screenshot={}", png.display());
    let size = format!("--window-size={width},900");
    let Some((command, _profile)) =
        chromium_at(page, fragment, &[&shot, &size, "--hide-scrollbars"])
    else {
        return false;
    };
    let output = run_command(command, DEADLINE);
    output.status.success() && png.is_file()
}

/// How many times `needle` occurs in `dom`.
pub fn count(dom: &str, needle: &str) -> usize {
    dom.matches(needle).count()
}

/// The distinct values of the attribute `name` (`data-lane`, ...) in `dom`.
pub fn distinct(dom: &str, name: &str) -> std::collections::BTreeSet<String> {
    let open = format!("{name}=\"");
    dom.match_indices(&open)
        .filter_map(|(at, _)| {
            let rest = &dom[at + open.len()..];
            rest.find('"').map(|end| rest[..end].to_owned())
        })
        .collect()
}

/// The value of the first `name="..."` attribute in `dom`.
pub fn attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("{name}=\"");
    let at = dom.find(&open)? + open.len();
    dom[at..].find('"').map(|end| &dom[at..at + end])
}

/// What the page's script reported as errors (empty when none).
pub fn errors(dom: &str) -> String {
    let open = "<pre id=\"errors\">";
    let mut errors = dom
        .find(open)
        .map(|at| {
            let rest = &dom[at + open.len()..];
            rest[..rest.find("</pre>").unwrap_or(rest.len())].to_owned()
        })
        .unwrap_or_default();
    if dom.contains("data-errors=") && errors.is_empty() {
        errors = "the page marked an error".to_owned();
    }
    errors
}

/// The command that runs Chromium headless on `page`, isolated from any
/// network service or update check, with a fresh profile (removed when the
/// returned directory drops), or `None` (said) without Chromium.
fn chromium_at(page: &Path, fragment: &str, args: &[&str]) -> Option<(Command, TempDir)> {
    let Some(chromium) = chromium() else {
        eprintln!(
            "skipped: no chromium on PATH, so the page cannot be loaded \
             (apt-get install chromium)"
        );
        return None;
    };
    let page = page.canonicalize().expect("the page file exists");
    let profile = tempfile::tempdir().expect("a temporary profile directory");
    let mut url = format!("file://{}", page.display());
    if !fragment.is_empty() {
        url = format!("{url}#{fragment}");
    }
    let mut command = Command::new(chromium);
    command
        .args(HEADLESS)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url);
    Some((command, profile))
}
