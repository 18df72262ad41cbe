//! A child process that cannot outlive its test.

use std::ops::{Deref, DerefMut};
use std::process::{Child, Command};

/// A child process killed and reaped when this guard is dropped, however
/// the test ends: a failed assertion unwinds through the guard, so a
/// server started by a failing test does not run on for hours.
#[derive(Debug)]
pub struct KillOnDrop(Option<Child>);

impl KillOnDrop {
    /// Starts `command` under the guard.
    pub fn spawn(command: &mut Command) -> std::io::Result<KillOnDrop> {
        command.spawn().map(KillOnDrop::new)
    }

    /// Guards an already started child.
    pub fn new(child: Child) -> KillOnDrop {
        KillOnDrop(Some(child))
    }

    /// Gives the child back, unguarded: for
    /// [`Child::wait_with_output`], which takes it by value.
    pub fn into_inner(mut self) -> Child {
        self.0.take().expect("the child is here until dropped")
    }
}

impl Deref for KillOnDrop {
    type Target = Child;

    fn deref(&self) -> &Child {
        self.0.as_ref().expect("the child is here until dropped")
    }
}

impl DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        self.0.as_mut().expect("the child is here until dropped")
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            // Already ended is fine: `wait` then only reaps it.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_is_killed_when_its_guard_is_dropped_by_a_panic() {
        let guard = KillOnDrop::spawn(Command::new("sleep").arg("60")).expect("sleep starts");
        let pid = guard.id();
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let _guard = guard;
            panic!("a failed assertion");
        }));
        assert!(unwound.is_err());
        // Reaped by the guard: the pid names no process of ours any more.
        let status = std::fs::read_to_string(format!("/proc/{pid}/status"));
        assert!(
            status.is_err() || !status.unwrap().contains("sleep"),
            "sleep {pid} outlived its guard"
        );
    }
}
