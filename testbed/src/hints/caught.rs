//! Whether a panic was caught inside its test, read from where it was
//! raised.
//!
//! A test may panic on purpose and catch it: the executors of chapters 8
//! and 10 catch a task's panic (`catch_unwind`) and hand it to whoever
//! joins the task, and a test checks just that. Such a panic is not a
//! failure, but the panic hook cannot know it: it runs before the unwind
//! finds its catcher. What it can do is keep the stack (unresolved, which
//! costs little) of each thread's last panic. libtest calls a test's body
//! through `__rust_begin_short_backtrace`, and catches its panic outside
//! that frame; a `catch_unwind` frame between the panic and that marker
//! is the test's own (or the code's under test). Such a panic was caught
//! for good, or caught to be raised again with `resume_unwind` (as
//! `block_on` does with its future's panic), which runs no hook: its test
//! may have failed or not. A panic with no such frame reached libtest:
//! its test failed.

use std::backtrace::{Backtrace, BacktraceStatus};

/// Whether the panic `raised_at` was captured in reached the test's
/// caller (libtest, or the thread's start) without a `catch_unwind` of
/// the test's own on the way. A stack that could not be captured counts
/// as reaching it.
pub(super) fn escaped(raised_at: &Backtrace) -> bool {
    raised_at.status() != BacktraceStatus::Captured || escaped_in(&format!("{raised_at:#}"))
}

/// [`escaped`] on a printed stack: no `catch_unwind` frame before the
/// first `__rust_begin_short_backtrace` one.
fn escaped_in(stack: &str) -> bool {
    for line in stack.lines() {
        // Frame lines are `  12: symbol`; the others say where it is.
        let Some((number, symbol)) = line.trim_start().split_once(": ") else {
            continue;
        };
        if number.parse::<usize>().is_err() {
            continue;
        }
        if symbol.contains("__rust_begin_short_backtrace") {
            return true;
        }
        if symbol.contains("catch_unwind") {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catch_between_the_panic_and_the_test_s_start_means_caught() {
        let stack = "   0: testbed::hints::runtime::install::{{closure}}\n\
                     \x20            at ./src/hints/runtime.rs:50:9\n\
                     \x20  1: std::panicking::catch_unwind::<(), ch10_bounded::run_task>\n\
                     \x20  2: ch10_bounded::tests::a_panicking_item_fails_alone\n\
                     \x20  3: test::__rust_begin_short_backtrace\n\
                     \x20  4: std::panicking::catch_unwind::<(), test::run_test_in_process>\n";
        assert!(!escaped_in(stack), "the executor caught it");
        let failed = stack.replace("std::panicking::catch_unwind::<(), ch10", "ch10");
        assert!(
            escaped_in(&failed),
            "only libtest's catch, outside the marker"
        );
    }

    #[test]
    fn a_real_stack_tells_a_caught_panic_from_one_that_reaches_libtest() {
        let inside = std::panic::catch_unwind(|| escaped(&Backtrace::force_capture()));
        assert_eq!(
            inside.ok(),
            Some(false),
            "captured under a catch_unwind of the test's own"
        );
        assert!(
            escaped(&Backtrace::force_capture()),
            "captured in the test's body, with only libtest's catch outside"
        );
    }
}
