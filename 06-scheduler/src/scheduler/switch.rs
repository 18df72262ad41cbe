//! The stack switch: into a fiber ([`Scheduler::resume`], from the loop)
//! and out of it (`YielderSlot::suspend`, from deep inside the fiber), and
//! the crate's only `unsafe` code, which the second needs.
//!
//! corosensei switches stacks and nothing else. It hands a fiber's body a
//! `&Yielder`, the one thing that can switch *out* of that fiber, and only
//! the body has it. But a fiber must be able to suspend from inside code
//! that knows nothing about fibers: `sync::request` calls `Conn::recv`,
//! which calls `LineFramer::read_line`, which calls `FiberTcpStream::read`,
//! and `std::io::Read::read` has no parameter to pass a yielder through.
//! So the scheduler keeps the *running* fiber's yielder as a raw pointer in
//! a [`YielderSlot`]: stored by the fiber's body when it starts and each
//! time it comes back from a switch, cleared by the loop each time the
//! fiber switches out. The slot's `# Invariant` says when the pointer may
//! be used; `store` is `unsafe` because its caller must uphold it; the one
//! dereference, in `suspend`, says why it holds.
//!
//! Two schedulers must never run on one thread at once (a fiber of one
//! would switch out through the other's yielder), so [`RunningGuard`]
//! marks the thread while `run` runs: the crate's one thread-local.
//!
//! Not here: which fiber runs next (the loop, `scheduler.rs`).

use std::cell::Cell;
use std::ptr::NonNull;
use std::rc::Rc;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::table::FiberId;
use super::wait::Resume;
use super::{Inner, RunError, Scheduler};

/// A fiber's coroutine: resumed with a [`Resume`], yields nothing (the
/// reason it stopped is in its wait record), returns nothing (its result
/// went to whoever started it).
pub(super) type Fiber = Coroutine<Resume, (), (), DefaultStack>;

/// Makes the coroutine of a new fiber that runs `body` on `stack`.
pub(super) fn fiber(
    stack: DefaultStack,
    inner: &Rc<Inner>,
    body: impl FnOnce() + 'static,
) -> Fiber {
    let inner = inner.clone();
    Coroutine::with_stack(stack, move |yielder: &Yielder<Resume, ()>, _first| {
        // SAFETY: `yielder` is the one corosensei passed to this fiber's
        // body, and this fiber is running: corosensei runs a body only when
        // the loop resumes its coroutine (`Scheduler::resume`), which
        // clears the slot when the fiber switches out. That is
        // `YielderSlot::store`'s contract.
        unsafe { inner.yielder.store(yielder) };
        body();
    })
}

/// The running fiber's yielder, as a raw pointer.
///
/// # Invariant
///
/// When the slot holds a pointer, it points to the `Yielder` that
/// corosensei passed to the body of the fiber running now, on this thread,
/// and that body has not returned. The `Yielder` lives in the fiber's
/// coroutine, which is not freed before its body returns, so the pointer is
/// valid. When no fiber runs, the slot is empty.
///
/// `store` (unsafe) and `Scheduler::resume` (which clears the slot after
/// every switch out) keep it; `suspend` relies on it.
pub(super) struct YielderSlot(Cell<Option<NonNull<Yielder<Resume, ()>>>>);

impl YielderSlot {
    /// An empty slot: no fiber runs.
    pub(super) fn new() -> YielderSlot {
        YielderSlot(Cell::new(None))
    }

    /// Stores the running fiber's yielder.
    ///
    /// # Safety
    ///
    /// `yielder` must be the one corosensei passed to the body of the fiber
    /// that is running now, called from that body, and the slot must be
    /// cleared (`clear`) as soon as that fiber switches out.
    pub(super) unsafe fn store(&self, yielder: &Yielder<Resume, ()>) {
        debug_assert!(
            self.0.get().is_none(),
            "a fiber starts with the slot empty: the loop clears it after every switch"
        );
        self.0.set(Some(NonNull::from(yielder)));
    }

    /// Empties the slot, once the running fiber has switched out.
    fn clear(&self) {
        self.0.set(None);
    }

    // ANCHOR: suspend
    /// Switches from the running fiber back to the scheduler's loop, and
    /// returns when the loop resumes this fiber, with the reason.
    ///
    /// # Panics
    ///
    /// Outside a fiber (the slot is empty).
    pub(super) fn suspend(&self) -> Resume {
        let yielder = self
            .0
            .take()
            .expect("suspend is only reached from a running fiber");
        // SAFETY: by the slot's invariant, `yielder` was stored by the fiber
        // running now, from the `&Yielder` corosensei passed to its body,
        // and that body has not returned (we are in a call it made), so the
        // yielder is alive. No fiber of another scheduler can be running
        // above this one: `run` refuses to nest (`RunningGuard`).
        let why = unsafe { yielder.as_ref() }.suspend(());
        // This fiber runs again (the loop resumed it, with the slot empty):
        // the pointer is once more the running fiber's own.
        self.0.set(Some(yielder));
        why
    }
    // ANCHOR_END: suspend
}

impl Scheduler {
    // ANCHOR: resume
    /// Switches into fiber `id` until it waits again or finishes.
    pub(super) fn resume(&self, id: FiberId) {
        let (mut fiber, why) = {
            let mut state = self.inner.state.borrow_mut();
            let Some(fiber) = state.fibers.get_mut(id) else {
                return;
            };
            let coroutine = fiber.coroutine.take().expect("a ready fiber is suspended");
            let why = fiber.resume;
            state.stats.switches += 1;
            (coroutine, why)
        };
        // No borrow of the state is held here: the fiber uses it.
        self.inner.current.set(Some(id));
        let result = fiber.resume(why);
        self.inner.current.set(None);
        self.inner.yielder.clear();
        let mut state = self.inner.state.borrow_mut();
        match result {
            CoroutineResult::Yield(()) => state.fibers.fiber_mut(id).coroutine = Some(fiber),
            CoroutineResult::Return(()) => {
                state.fibers.remove(id);
                state.stacks.put(fiber.into_stack());
            }
        }
    }
    // ANCHOR_END: resume
}

thread_local! {
    /// Is a scheduler running on this thread? See [`RunningGuard`].
    static RUNNING: Cell<bool> = const { Cell::new(false) };
}

/// Marks "a scheduler runs on this thread" for the duration of `run`.
///
/// Running a second scheduler from inside a fiber of the first would let a
/// fiber of the inner one switch out through a yielder of the outer one,
/// which corosensei cannot make sense of; refusing to nest is what makes the
/// `unsafe` in `suspend` sound. A thread-local is the only place that can
/// know about *every* scheduler of the thread.
pub(super) struct RunningGuard;

impl RunningGuard {
    pub(super) fn enter() -> Result<RunningGuard, RunError> {
        RUNNING.with(|running| {
            if running.replace(true) {
                Err(RunError::Nested)
            } else {
                Ok(RunningGuard)
            }
        })
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        RUNNING.with(|running| running.set(false));
    }
}
