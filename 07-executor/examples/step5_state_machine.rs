//! Step 5 of chapter 8: what an `async fn` turns into. The same two naps
//! written twice, by the compiler and by hand as an enum; then a borrow
//! across an `.await`, which is why `poll` takes `Pin<&mut Self>`; then
//! what `Box::pin` costs.
//!
//! `cargo run -p executor --example step5_state_machine`

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use executor::{Executor, Handle, Sleep};

const NAP: Duration = Duration::from_millis(10);

// ANCHOR: async_fn
/// Two naps, one after the other: the compiler's state machine.
async fn two_naps(handle: Handle) -> Duration {
    let started = Instant::now();
    handle.sleep(NAP).await;
    handle.sleep(NAP).await;
    started.elapsed()
}
// ANCHOR_END: async_fn

// ANCHOR: by_hand
/// The same two naps, by hand: one variant per place where the function
/// can stop, holding exactly the variables alive there.
enum TwoNaps {
    /// Not polled yet: only the argument.
    Start { handle: Handle },
    /// At the first `.await`.
    First {
        handle: Handle,
        started: Instant,
        sleep: Sleep,
    },
    /// At the second `.await`: `handle` is no longer needed.
    Second { started: Instant, sleep: Sleep },
    /// Returned `Ready`.
    Done,
}

impl Future for TwoNaps {
    type Output = Duration;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Duration> {
        // Every field is `Unpin` (a handle, an instant, a `Sleep`), so the
        // enum is too, and the pin gives plain `&mut` access.
        loop {
            // Take the state out, leaving `Done`; put the next one back.
            match std::mem::replace(&mut *self, TwoNaps::Done) {
                TwoNaps::Start { handle } => {
                    let sleep = handle.sleep(NAP);
                    let started = Instant::now();
                    *self = TwoNaps::First {
                        handle,
                        started,
                        sleep,
                    };
                }
                TwoNaps::First {
                    handle,
                    started,
                    mut sleep,
                } => match Pin::new(&mut sleep).poll(cx) {
                    Poll::Ready(()) => {
                        let sleep = handle.sleep(NAP);
                        *self = TwoNaps::Second { started, sleep };
                    }
                    Poll::Pending => {
                        *self = TwoNaps::First {
                            handle,
                            started,
                            sleep,
                        };
                        return Poll::Pending;
                    }
                },
                TwoNaps::Second { started, mut sleep } => match Pin::new(&mut sleep).poll(cx) {
                    Poll::Ready(()) => return Poll::Ready(started.elapsed()),
                    Poll::Pending => {
                        *self = TwoNaps::Second { started, sleep };
                        return Poll::Pending;
                    }
                },
                TwoNaps::Done => panic!("TwoNaps polled after it returned Ready"),
            }
        }
    }
}
// ANCHOR_END: by_hand

// ANCHOR: borrow
/// A borrow of a local that lives across an `.await`: `first` points into
/// `numbers`, and both are kept in the future while it waits. This future
/// points into itself.
async fn sum_after_a_nap(handle: Handle) -> u32 {
    let numbers = [1, 2, 3];
    let first = &numbers[0];
    handle.sleep(NAP).await;
    *first + numbers[2]
}
// ANCHOR_END: borrow

// ANCHOR: pin
/// Polls `future` once, by hand, pinned two ways.
fn poll_once<F: Future>(future: F) -> Poll<F::Output> {
    let mut cx = Context::from_waker(std::task::Waker::noop());
    // `pin!` pins it here, on the stack: no allocation, and the pinned
    // reference cannot outlive this frame.
    let mut on_the_stack = pin!(future);
    on_the_stack.as_mut().poll(&mut cx)
}

/// The same, pinned on the heap: one allocation, and the box may move
/// (the future inside does not).
fn poll_once_boxed<F: Future>(future: F) -> Poll<F::Output> {
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let mut on_the_heap: Pin<Box<F>> = Box::pin(future);
    on_the_heap.as_mut().poll(&mut cx)
}
// ANCHOR_END: pin

/// Counts each thread's allocations, to show what boxing costs.
struct Counting;

thread_local! {
    /// This thread's allocations so far. Per thread, so that the tests,
    /// which run on threads side by side, count only their own.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is passed on unchanged to the system allocator, which
// keeps `GlobalAlloc`'s contract; the counter is only a side effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // `try_with`: a thread that is ending may allocate after its
        // thread-locals are gone; that allocation is not counted.
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: our caller keeps `alloc`'s contract (a non-zero size).
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` above, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// How many allocations `f` made.
fn allocations<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCATIONS.with(Cell::get);
    let output = f();
    (output, ALLOCATIONS.with(Cell::get) - before)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::new()?;
    let handle = executor.handle();

    let compilers = two_naps(handle.clone());
    let by_hand = TwoNaps::Start {
        handle: handle.clone(),
    };
    println!(
        "two naps: the compiler's future is {} bytes, the hand-written enum {} bytes",
        std::mem::size_of_val(&compilers),
        std::mem::size_of_val(&by_hand)
    );
    let (a, b) = (executor.block_on(compilers)?, executor.block_on(by_hand)?);
    println!(
        "both took two naps of {NAP:?}: {:.1} ms and {:.1} ms",
        a.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3
    );

    let borrowing = sum_after_a_nap(handle.clone());
    println!(
        "sum_after_a_nap: {} bytes, and its answer {}",
        std::mem::size_of_val(&borrowing),
        executor.block_on(borrowing)?
    );

    // A future that allocates nothing itself: only the pinning counts.
    let (_, stack) = allocations(|| poll_once(async { 7 }));
    let (_, heap) = allocations(|| poll_once_boxed(async { 7 }));
    println!(
        "pinned with pin!: {stack} allocations; with Box::pin: {heap} (the box, and nothing else)"
    );
    let (_, spawned) = allocations(|| {
        for _ in 0..1000 {
            drop(executor.spawn(async {}));
        }
    });
    println!(
        "spawning a task: {:.1} allocations each, over 1000 (one is the Box::pin of its future)",
        spawned as f64 / 1000.0
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hand_written_enum_does_what_the_async_fn_does() {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        for took in [
            executor
                .block_on(two_naps(handle.clone()))
                .expect("it runs"),
            executor
                .block_on(TwoNaps::Start {
                    handle: handle.clone(),
                })
                .expect("it runs"),
        ] {
            assert!(took >= 2 * NAP, "{took:?}");
        }
        assert_eq!(
            executor.block_on(sum_after_a_nap(handle)).expect("it runs"),
            4
        );
    }

    #[test]
    fn box_pin_allocates_once_and_pin_never() {
        let executor = Executor::new().expect("an executor");
        let handle = executor.handle();
        let (_, stack) = allocations(|| poll_once(std::future::ready(1)));
        let (_, heap) = allocations(|| poll_once_boxed(std::future::ready(1)));
        assert_eq!((stack, heap), (0, 1));
        let (_, stack) = allocations(|| poll_once(sum_after_a_nap(handle.clone())));
        // Polled once, the nap sets its timer in the executor's heap, which
        // may allocate as it grows: only the box is the difference.
        let (_, heap) = allocations(|| poll_once_boxed(sum_after_a_nap(handle.clone())));
        assert!(heap >= 1 && heap <= stack + 1, "{heap} against {stack}");
    }

    #[test]
    fn the_hand_written_enum_is_unpin() {
        // Checked when this compiles: an `async fn`'s future would not be
        // accepted here (the crate's docs hold that example, which must
        // fail to compile).
        fn unpin<T: Unpin>(_: &T) {}
        let executor = Executor::new().expect("an executor");
        unpin(&TwoNaps::Start {
            handle: executor.handle(),
        });
    }
}
