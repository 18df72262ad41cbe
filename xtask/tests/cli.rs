//! The built `xtask` binary, run as `cargo xtask` runs it: help works, and
//! a bad command line is refused with exit status 2 before any task
//! starts (so before anything is built or written).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use testbed::testing::KillOnDrop;

/// Generous: a refused command line answers in milliseconds, but a task
/// that wrongly starts may build the workspace; the test must end anyway.
const LIMIT: Duration = Duration::from_secs(60);

/// Runs xtask with `args` in `dir`, killing it if it runs past [`LIMIT`].
fn xtask(dir: &Path, args: &[&str]) -> Output {
    let mut child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .expect("xtask starts");
    let started = Instant::now();
    while child.try_wait().expect("xtask can be waited for").is_none() {
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let output = child
                .into_inner()
                .wait_with_output()
                .expect("killed xtask ends");
            panic!(
                "xtask {args:?} still ran after {LIMIT:?}: it started a task:\n{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child
        .into_inner()
        .wait_with_output()
        .expect("xtask's output")
}

/// An empty folder of its own for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("the scratch folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

#[test]
fn help_lists_every_task_and_exits_0() {
    let output = xtask(&std::env::temp_dir(), &["--help"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    for task in [
        "check-book",
        "book-stats",
        "starters",
        "check-exercises",
        "handout",
        "check-handout",
        "figures",
    ] {
        assert!(stdout.contains(task), "--help lacks {task}:\n{stdout}");
    }
}

#[test]
fn starters_help_prints_help_and_writes_nothing() {
    let dir = scratch("starters-help");
    let output = xtask(&dir, &["starters", "--help"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let written = entries(&dir);
    std::fs::remove_dir_all(&dir).expect("the scratch folder goes");
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("Usage: cargo xtask starters"), "{stdout}");
    assert!(written.is_empty(), "starters --help wrote {written:?}");
}

#[test]
fn a_misspelled_flag_exits_2_naming_it_before_any_work() {
    let dir = scratch("figures-chek");
    let output = xtask(&dir, &["figures", "--chek"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let written = entries(&dir);
    std::fs::remove_dir_all(&dir).expect("the scratch folder goes");
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("'--chek'"), "{stderr}");
    assert!(output.stdout.is_empty(), "it printed what a task prints");
    assert!(written.is_empty(), "figures --chek wrote {written:?}");
}

#[test]
fn an_unknown_task_or_a_missing_folder_exits_2() {
    let dir = std::env::temp_dir();
    for args in [&["figure"][..], &["handout"], &["check-book", "extra"]] {
        let output = xtask(&dir, args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn starters_never_replace_a_folder_they_did_not_make() {
    let dir = scratch("starters-over-a-folder");
    std::fs::write(dir.join("thesis.tex"), "years of work").expect("a file of the user's");
    let folder = dir.display().to_string();
    let output = xtask(&std::env::temp_dir(), &["starters", &folder]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let kept = std::fs::read_to_string(dir.join("thesis.tex"));
    std::fs::remove_dir_all(&dir).expect("the scratch folder goes");
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("does not hold starters"), "{stderr}");
    assert_eq!(kept.ok().as_deref(), Some("years of work"));
}

#[test]
fn bad_input_a_task_finds_exits_2_in_one_line() {
    let dir = scratch("bad-input");
    std::fs::write(dir.join("notes.txt"), "mine").expect("a file of the user's");
    let folder = dir.display().to_string();
    for args in [&["figures", "no-such-figure"][..], &["handout", &folder]] {
        let output = xtask(&dir, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    let left = entries(&dir);
    std::fs::remove_dir_all(&dir).expect("the scratch folder goes");
    assert_eq!(left, ["notes.txt"]);
}

#[test]
fn a_file_given_as_a_folder_is_one_line_naming_it_and_exit_2() {
    let dir = scratch("handout-file");
    let file = dir.join("notes.txt");
    std::fs::write(&file, "kept").expect("a file");
    let file_arg = file.to_string_lossy().into_owned();
    for task in ["handout", "starters"] {
        let output = xtask(&dir, &[task, &file_arg]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{task}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{task}: {stderr}");
        assert!(stderr.contains(&file_arg), "{task}: {stderr}");
    }
    let kept = std::fs::read_to_string(&file).expect("still there");
    std::fs::remove_dir_all(&dir).expect("the scratch folder goes");
    assert_eq!(kept, "kept");
}
