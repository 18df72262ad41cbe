//! [`ItemHook`]: code of your own, run inside each item's task of the
//! stage, just before its request.
//!
//! The stage's task per item is short and correct. To show what goes
//! wrong when a task blocks the thread, loses its waker or holds a borrow
//! across an `.await`, the examples of chapter 10 ("When a loop goes wrong") put that
//! one mistake into the real stage, at this one place, instead of copying
//! the stage to change a line: the report, the timeline and the exit
//! status are then the stage's own, and what differs is the hook alone.
//!
//! A hook is an `async` step (a boxed future, so that [`Futures`] can keep
//! any hook behind one type) that borrows the hook, the executor's
//! [`Handle`] and the item. The stage awaits it once the item's clock has
//! started, so its time counts in the item's latency, and before the task
//! takes a connection slot, so a hook that panics loses no slot.
//!
//! [`Futures`]: crate::Futures

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use testbed::workload::Item;

use crate::handle::Handle;

/// A future a hook returns: boxed, on the loop's thread, borrowing.
pub type HookFuture<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

/// Something to do in each item's task, before its request.
///
/// # Examples
///
/// A hook that waits a millisecond before each request, in the stage:
///
/// ```
/// use std::time::Duration;
/// use executor::{Futures, Handle, Hook, HookFuture, ItemHook};
/// use testbed::cli::Settings;
/// use testbed::harness::execute;
/// use testbed::workload::Item;
///
/// struct Pause;
///
/// impl ItemHook for Pause {
///     fn before<'a>(&'a self, handle: &'a Handle, _item: &'a Item) -> HookFuture<'a> {
///         Box::pin(handle.sleep(Duration::from_millis(1)))
///     }
/// }
///
/// let stage = Futures { hook: Some(Hook::new(Pause)), ..Futures::default() };
/// let settings = Settings { items: 10, conns: 2, latency: "1ms".parse()?, ..Settings::default() };
/// let execution = execute(&stage, &settings)?;
/// assert_eq!(execution.report.ok, 10);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait ItemHook {
    /// Runs in `item`'s task, before its request; the request waits for it.
    fn before<'a>(&'a self, handle: &'a Handle, item: &'a Item) -> HookFuture<'a>;
}

/// An [`ItemHook`] as the stage keeps it: shared, clonable, printable.
#[derive(Clone)]
pub struct Hook(Rc<dyn ItemHook>);

impl Hook {
    /// Wraps `hook` for [`Futures::hook`](crate::Futures::hook).
    pub fn new(hook: impl ItemHook + 'static) -> Hook {
        Hook(Rc::new(hook))
    }

    /// Runs the hook for `item`.
    pub(crate) fn before<'a>(&'a self, handle: &'a Handle, item: &'a Item) -> HookFuture<'a> {
        self.0.before(handle, item)
    }
}

impl fmt::Debug for Hook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Hook(..)")
    }
}
