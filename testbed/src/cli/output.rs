//! Where a program writes its pictures: a regular file, or a new path,
//! whose name says the format.
//!
//! An output must never wait or vanish. Writing to a FIFO waits for a
//! reader that may never come (a run once hung there for good, before it
//! had started, with its signals already taken over); a device swallows
//! the picture or fails after the whole run; a directory cannot be
//! written at all. So `--timeline` and `--out` are checked before the run
//! starts, with the file left as it was. And the name's ending chooses the
//! format: an ending the program does not know (`run.png`, `run.HTML`)
//! is refused rather than silently given an SVG.

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// The endings `--timeline` takes, each a format (`timeline::render_for`).
pub const TIMELINE_ENDINGS: &[&str] = &[".svg", ".html", ".trace.json", ".json"];

/// The endings `stack-timelines --out` takes.
pub const STACK_ENDINGS: &[&str] = &[".svg", ".html"];

/// Checks that `path`, given with `flag`, can take the output: a name
/// ending in one of `endings`, and a regular file or a new path that can
/// be written. Changes nothing: a file made to probe is removed again.
/// `Err` is the one line to refuse with.
pub fn check_output(flag: &str, path: &Path, endings: &[&str]) -> Result<(), String> {
    let shown = path.display();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !endings.iter().any(|ending| name.ends_with(ending)) {
        return Err(format!(
            "{flag} {shown}: the name's ending says the format, and this one is not known; \
             end it in {} (lower case)",
            list(endings)
        ));
    }
    let special = match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => None,
        Ok(meta) if meta.is_dir() => Some("a directory"),
        Ok(meta) if meta.file_type().is_fifo() => Some("a FIFO (named pipe)"),
        Ok(meta) if meta.file_type().is_char_device() || meta.file_type().is_block_device() => {
            Some("a device")
        }
        Ok(_) => Some("a special file"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{flag} {shown}: cannot be written ({e})")),
    };
    if let Some(kind) = special {
        return Err(format!(
            "{flag} {shown}: {kind}, not a regular file; the output is written to a file: give \
             a file's path, e.g. {flag} run{}",
            endings[0]
        ));
    }
    writable(path).map_err(|e| format!("{flag} {shown}: cannot be written ({e})"))
}

/// `a, b, c or d`.
fn list(endings: &[&str]) -> String {
    match endings.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Opens `path` (a regular file, or none yet) for writing without changing
/// it; a file made for the probe is removed again, so a run that fails
/// later leaves nothing behind.
fn writable(path: &Path) -> io::Result<()> {
    let existed = path.exists();
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    if !existed {
        std::fs::remove_file(path)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_upper_case_endings_are_refused_naming_the_known_ones() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["run.HTML", "run.png", "x.unknown", "run"] {
            let refused = check_output("--timeline", &dir.path().join(name), TIMELINE_ENDINGS)
                .expect_err(name);
            assert!(
                refused.contains(".svg, .html, .trace.json or .json"),
                "{refused}"
            );
        }
        let refused = check_output("--out", &dir.path().join("x.trace.json"), STACK_ENDINGS)
            .expect_err("a stack is an SVG or a page");
        assert!(refused.contains("end it in .svg or .html"), "{refused}");
        for name in ["run.svg", "run.html", "run.trace.json", "run.json"] {
            check_output("--timeline", &dir.path().join(name), TIMELINE_ENDINGS).expect(name);
            assert!(!dir.path().join(name).exists(), "the probe leaves nothing");
        }
    }

    #[test]
    fn a_fifo_a_device_and_a_directory_are_refused_without_opening_them() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f.html");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // Opening the FIFO for writing would wait for a reader for ever:
        // the check runs on a thread, so a regression fails this test in
        // seconds instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let probe = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(check_output("--timeline", &probe, TIMELINE_ENDINGS));
        });
        let Ok(refused) = rx.recv_timeout(std::time::Duration::from_secs(5)) else {
            // Let the stuck open go, then fail.
            let _ = std::fs::File::open(&fifo);
            panic!("the check opened the FIFO and waited for a reader");
        };
        let refused = refused.expect_err("a FIFO");
        assert!(refused.contains("a FIFO"), "{refused}");

        let folder = dir.path().join("d.svg");
        std::fs::create_dir(&folder).unwrap();
        let refused = check_output("--timeline", &folder, TIMELINE_ENDINGS).expect_err("a dir");
        assert!(refused.contains("a directory"), "{refused}");
        let refused = check_output("--out", Path::new("/dev/null"), &[""]).expect_err("a device");
        assert!(refused.contains("a device"), "{refused}");
    }
}
