//! What [`hint_on_failure!`](crate::hint_on_failure) installs: a panic
//! hook that notes which tests failed, and an exit handler that prints
//! their hints.
//!
//! Why at exit: libtest decides, after the last test, whether the run
//! failed, and then calls `std::process::exit(101)`; nothing of the test
//! binary runs after that but the C library's exit handlers. glibc's
//! `on_exit` (unlike `atexit`) hands its handler the exit status, so a
//! run that passed prints nothing even if the code under test caught a
//! panic on purpose along the way.

use std::backtrace::Backtrace;
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::ThreadId;

use super::caught::escaped;

/// The exercise whose hints are printed, set by the first [`install`].
static EXERCISE: OnceLock<&'static str> = OnceLock::new();
/// The process that installed the hints: a child it forks inherits the
/// exit handler, but its exit is not the tests' end.
static INSTALLER: OnceLock<u32> = OnceLock::new();
/// Whether some code is not written yet (a `todo!` panicked): then the
/// tests fail for that, not for a known mistake, and no hint is printed.
static UNFINISHED: AtomicBool = AtomicBool::new(false);
/// The tests that [`failed`] named.
static FAILED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
/// Each named thread's last panic: its thread, its name (its test's), and
/// where it was raised, to tell at exit whether it was caught on purpose.
static LAST_PANICS: Mutex<Vec<(ThreadId, String, Backtrace)>> = Mutex::new(Vec::new());

unsafe extern "C" {
    /// glibc's `on_exit(3)`: registers `function`, called by `exit` with
    /// the exit status and `arg`.
    fn on_exit(
        function: extern "C" fn(libc::c_int, *mut libc::c_void),
        arg: *mut libc::c_void,
    ) -> libc::c_int;
}

/// Starts noting failed tests, and prints `exercise`'s hints when the
/// process exits with a failure. [`hint_on_failure!`](crate::hint_on_failure)
/// calls it before `main`; any call after the first does nothing.
///
/// ```
/// testbed::hints::install("ch06-channel");
/// testbed::hints::install("ch06-channel"); // nothing more
/// ```
pub fn install(exercise: &'static str) {
    if EXERCISE.set(exercise).is_err() {
        return;
    }
    let _ = INSTALLER.set(std::process::id());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // libtest runs each test on a thread named after it; the main
        // thread and unnamed threads are no test's.
        if info
            .payload_as_str()
            .is_some_and(|p| p.starts_with("not yet implemented"))
        {
            UNFINISHED.store(true, Ordering::Relaxed);
        }
        let thread = std::thread::current();
        if let Some(name) = thread.name()
            && name != "main"
        {
            let raised_at = Backtrace::force_capture();
            let mut last = lock(&LAST_PANICS);
            last.retain(|(id, _, _)| *id != thread.id());
            last.push((thread.id(), name.to_owned(), raised_at));
        }
        previous(info);
    }));
    // SAFETY: `print_hints` is an `extern "C" fn(c_int, *mut c_void)`, as
    // `on_exit` requires, that never unwinds (it catches any panic) and
    // ignores its argument, so a null one is fine.
    unsafe {
        on_exit(print_hints, std::ptr::null_mut());
    }
}

/// Notes that the test `name` failed: for a test binary without libtest
/// (`harness = false`), whose checks do not run on threads named after
/// them.
///
/// ```
/// testbed::hints::failed("a_replacement_finishes_the_dead_workers_items");
/// ```
pub fn failed(name: &str) {
    lock(&FAILED).insert(name.to_owned());
}

/// The lock, even if a thread panicked holding it (the data is only ever
/// added to).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The tests that failed: those named by [`failed`], and those whose
/// thread's last panic reached libtest; and the tests that may have
/// failed: those whose thread's last panic was caught inside the test
/// (for good, or to be raised again, which the hook cannot see).
fn failed_tests() -> (BTreeSet<String>, BTreeSet<String>) {
    let mut failed = lock(&FAILED).clone();
    let mut maybe = BTreeSet::new();
    for (_, name, raised_at) in lock(&LAST_PANICS).iter() {
        if escaped(raised_at) {
            failed.insert(name.clone());
        } else {
            maybe.insert(name.clone());
        }
    }
    (failed, maybe)
}

/// The exit handler: on a failed run, the hints that match the tests that
/// failed, on stderr.
extern "C" fn print_hints(status: libc::c_int, _: *mut libc::c_void) {
    if status == 0
        || INSTALLER.get() != Some(&std::process::id())
        || UNFINISHED.load(Ordering::Relaxed)
    {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        let Some(exercise) = EXERCISE.get() else {
            return;
        };
        let (failed, maybe) = failed_tests();
        let failed: Vec<&str> = failed.iter().map(String::as_str).collect();
        let maybe: Vec<&str> = maybe.iter().map(String::as_str).collect();
        let names = std::env::var_os("LADDER_HINT_NAMES").is_some_and(|v| v == "1");
        let hints = super::matching_in(super::table(), exercise, &failed, &maybe);
        let text = lines(&hints, names);
        let _ = std::io::stderr().write_all(text.as_bytes());
    });
}

/// What is printed for `hints`: nothing if none, else a line that says
/// what they are and one per hint (with its mistake's name if `names`).
fn lines(hints: &[&super::Hint], names: bool) -> String {
    if hints.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("\nhint: your failing tests are those of a known mistake; ask yourself:\n");
    for hint in hints {
        if names {
            out.push_str(&format!("hint: [{}] {}\n", hint.mistake, hint.question));
        } else {
            out.push_str(&format!("hint: {}\n", hint.question));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Hint;
    use super::*;

    #[test]
    fn one_line_says_what_they_are_then_one_per_hint() {
        let hint = Hint {
            exercise: "ch00-a",
            mistake: "if-not-loop",
            question: "does it look again?",
            caught_by: &["tests::looks_again"],
        };
        assert_eq!(lines(&[], true), "", "no hint, not a line");
        assert_eq!(
            lines(&[&hint], false),
            "\nhint: your failing tests are those of a known mistake; ask yourself:\n\
             hint: does it look again?\n",
            "the question alone"
        );
        assert!(
            lines(&[&hint], true).ends_with("\nhint: [if-not-loop] does it look again?\n"),
            "the mistake's name in brackets, for the grader"
        );
    }
}
