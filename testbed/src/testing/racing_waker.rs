//! A waker that makes something happen in the middle of a poll.
//!
//! A lost wake-up hides in a window: a future looks for its result, finds
//! none, lets go of the lock, and only then leaves its waker; a result that
//! comes in between finds no waker to wake, and the future returns
//! `Pending` with nobody left to wake it. A test can wait a long time for
//! another thread to land in that window by chance. [`RacingWaker`] puts it
//! there on purpose: the first time the future *clones* the waker (which a
//! future does just before it leaves it somewhere), the waker starts the
//! racing work on another thread and gives it a little while to finish.
//!
//! - A future that clones under the lock that guards its result keeps the
//!   racer out: the racer blocks on the lock, the while runs out, the poll
//!   leaves its waker and returns; then the racer gets the lock, delivers,
//!   and wakes it.
//! - A future that clones after letting go of the lock lets the racer in:
//!   the result lands before the waker does, wakes nobody, and the
//!   future's `Pending` is its last word. [`RacingWaker::wakes`] stays 0.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use std::task::{Context, Poll};
//! use std::time::Duration;
//! use testbed::testing::RacingWaker;
//!
//! let slot = Arc::new(Mutex::new(None::<u32>));
//! let racer = slot.clone();
//! let waker = RacingWaker::new(Duration::from_millis(5), move || {
//!     *racer.lock().unwrap() = Some(7);
//! });
//! // A careless poll: looks, lets go, clones, leaves nothing behind.
//! let found = slot.lock().unwrap().take();
//! assert_eq!(found, None);
//! let _kept = Context::from_waker(&waker.waker()).waker().clone();
//! waker.join();
//! assert_eq!(*slot.lock().unwrap(), Some(7), "the racer came in the window");
//! assert_eq!(waker.wakes(), 0, "and nobody woke anyone");
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{RawWaker, RawWakerVTable, Waker};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the waker's clones share.
struct Inner {
    /// How long a clone waits for the racer before it returns.
    grace: Duration,
    /// The racing work, until the first clone starts it.
    racer: Mutex<Option<Box<dyn FnOnce() + Send>>>,
    /// The racer's thread, once started.
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Calls to `wake` and `wake_by_ref`, on any clone.
    wakes: AtomicUsize,
}

/// A waker whose first clone runs a racer in the middle of the poll.
pub struct RacingWaker {
    inner: Arc<Inner>,
}

impl RacingWaker {
    /// A waker that, at its first clone, runs `racer` on a thread of its
    /// own and waits up to `grace` for it before the clone returns.
    pub fn new(grace: Duration, racer: impl FnOnce() + Send + 'static) -> RacingWaker {
        RacingWaker {
            inner: Arc::new(Inner {
                grace,
                racer: Mutex::new(Some(Box::new(racer))),
                thread: Mutex::new(None),
                wakes: AtomicUsize::new(0),
            }),
        }
    }

    /// The waker to poll with.
    pub fn waker(&self) -> Waker {
        let data = Arc::into_raw(self.inner.clone()).cast::<()>();
        // SAFETY: `data` is a strong reference to an `Inner`, made by
        // `Arc::into_raw`, and `VTABLE`'s functions treat it as exactly that:
        // each clone adds a reference, each drop and `wake` gives one back.
        unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
    }

    /// Calls to `wake` or `wake_by_ref` so far.
    pub fn wakes(&self) -> usize {
        self.inner.wakes.load(Ordering::SeqCst)
    }

    /// Waits for the racer to end, if it was started: after it, every wake
    /// it was going to make is made.
    pub fn join(&self) {
        let thread = lock(&self.inner.thread).take();
        if let Some(thread) = thread
            && let Err(panic) = thread.join()
        {
            std::panic::resume_unwind(panic);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake_by_ref, drop_waker);

/// The first clone starts the racer and waits a little for it.
unsafe fn clone(data: *const ()) -> RawWaker {
    // SAFETY: `data` came from `Arc::into_raw` (see `RacingWaker::waker`),
    // and the waker being cloned still holds its reference.
    unsafe { Arc::increment_strong_count(data.cast::<Inner>()) };
    // SAFETY: as above; the reference borrowed here lives while the waker does.
    let inner = unsafe { &*data.cast::<Inner>() };
    let racer = lock(&inner.racer).take();
    if let Some(racer) = racer {
        let (done, finished) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            racer();
            let _ = done.send(());
        });
        // Either the racer finishes within the grace (it found the lock
        // free), or it is blocked by the poll that is cloning us.
        let _ = finished.recv_timeout(inner.grace);
        *lock(&inner.thread) = Some(thread);
    }
    RawWaker::new(data, &VTABLE)
}

unsafe fn wake(data: *const ()) {
    // SAFETY: `wake` consumes the waker: its reference is used, then given back.
    unsafe { wake_by_ref(data) };
    // SAFETY: as above.
    unsafe { drop_waker(data) };
}

unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: `data` is a live strong reference held by the waker.
    let inner = unsafe { &*data.cast::<Inner>() };
    inner.wakes.fetch_add(1, Ordering::SeqCst);
}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: each waker holds one strong reference, given back here once.
    unsafe { Arc::decrement_strong_count(data.cast::<Inner>()) };
}
