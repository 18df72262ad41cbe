//! `cargo bench -p bench -- fibers`: what one fiber (06-scheduler) and one
//! task (07-executor) cost, alone, without sockets.
//!
//! - `fibers/scheduler/yield_round_trip`: one fiber calls `yield_now` in a
//!   loop; each call switches to the scheduler's loop and back.
//! - `fibers/scheduler/spawn_to_finish`: a parent fiber spawns an empty
//!   child and joins it, again and again, so every child gets a stack from
//!   the pool the previous one returned to (a warm `StackPool`).
//! - `fibers/executor/spawn`: spawn an empty task and let it finish, from
//!   inside `block_on`.
//! - `fibers/executor/wake_to_poll`: one task wakes itself and returns
//!   `Pending`, again and again; each round trip is a wake through the
//!   ready queue and a poll.
//!
//! And two sizes, printed (criterion times things; it does not weigh them):
//! the resident memory per idle fiber with 10,000 fibers waiting on one
//! `Notification` (from `/proc/self/statm` before and after: a fiber's
//! stack is mapped memory, which the allocator never sees), and the heap
//! bytes per task with 10,000 tasks waiting, counted by this benchmark's
//! global allocator. Resident memory would not do for tasks: a task is a
//! few small heap blocks, and an allocator that reuses what earlier
//! benchmarks freed places them in pages that are resident already, so a
//! difference of resident memory measures the allocator, not the tasks
//! (it printed 0 bytes in one run).
//!
//! Not here: the race's workloads (`benches/ladder.rs`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use executor::Executor;
use scheduler::{Notification, Scheduler};

/// How many fibers or tasks the memory figures are taken over.
const IDLE: usize = 10_000;

/// The system allocator, counting the bytes it has handed out and not
/// yet been given back.
struct Counting;

/// Bytes allocated and not freed, by every thread of this process.
static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every method forwards to `System` with the caller's own
// arguments, so `System`'s guarantees are this allocator's; the count is
// a side note that never changes what is returned.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract (a non-zero size),
        // which is `System::alloc`'s.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `block` came from this allocator, so from `System`, with
        // this `layout`, as the caller guarantees.
        unsafe { System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `block` came from `System` with `layout`, and `new_size`
        // is valid for it, as the caller guarantees.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        if !moved.is_null() {
            LIVE.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The heap bytes this process holds now.
fn live_bytes() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn fibers(c: &mut Criterion) {
    let mut group = c.benchmark_group("fibers");
    group.bench_function("scheduler/yield_round_trip", |b| {
        b.iter_custom(|iters| {
            let sched = Scheduler::new().expect("an epoll instance");
            let took = Rc::new(std::cell::Cell::new(Duration::ZERO));
            let (s, t) = (sched.clone(), took.clone());
            sched
                .spawn(move || {
                    let start = Instant::now();
                    for _ in 0..iters {
                        s.yield_now();
                    }
                    t.set(start.elapsed());
                })
                .expect("a stack");
            sched.run().expect("the fiber finishes");
            took.get()
        });
    });
    group.bench_function("scheduler/spawn_to_finish", |b| {
        b.iter_custom(|iters| {
            let sched = Scheduler::new().expect("an epoll instance");
            let took = Rc::new(std::cell::Cell::new(Duration::ZERO));
            let (s, t) = (sched.clone(), took.clone());
            sched
                .spawn(move || {
                    // One child first, so the pool holds a stack.
                    s.spawn(|| ()).expect("a stack").join().expect("no panic");
                    let start = Instant::now();
                    for _ in 0..iters {
                        let child = s.spawn(|| black_box(1)).expect("a stack");
                        black_box(child.join().expect("no panic"));
                    }
                    t.set(start.elapsed());
                })
                .expect("a stack");
            sched.run().expect("the fibers finish");
            took.get()
        });
    });
    group.bench_function("executor/spawn", |b| {
        b.iter_custom(|iters| {
            let exec = Executor::new().expect("an epoll instance");
            let handle = exec.handle();
            exec.block_on(async move {
                let start = Instant::now();
                for _ in 0..iters {
                    let task = handle.spawn(async { black_box(1) });
                    black_box(task.await.expect("no panic"));
                }
                start.elapsed()
            })
            .expect("the tasks finish")
        });
    });
    group.bench_function("executor/wake_to_poll", |b| {
        b.iter_custom(|iters| {
            let exec = Executor::new().expect("an epoll instance");
            let task = exec.spawn(async move {
                let start = Instant::now();
                for _ in 0..iters {
                    YieldOnce(false).await;
                }
                start.elapsed()
            });
            exec.block_on(task)
                .expect("the task finishes")
                .expect("no panic")
        });
    });
    group.finish();
    idle_fibers();
    idle_tasks();
}

/// Wakes its task and returns `Pending` once, then `Ready`: the smallest
/// trip through the executor's ready queue.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Resident memory per fiber with [`IDLE`] fibers waiting.
fn idle_fibers() {
    let sched = Scheduler::new().expect("an epoll instance");
    let gate = Rc::new(Notification::new(&sched));
    let before = resident_bytes();
    for _ in 0..IDLE {
        let gate = gate.clone();
        sched.spawn(move || gate.wait()).expect("a stack");
    }
    // Spawned last, it runs once every waiter has started and is waiting.
    let s = sched.clone();
    sched
        .spawn(move || {
            let after = resident_bytes();
            println!(
                "fibers/scheduler/rss_per_idle_fiber: {:.1} KiB ({IDLE} fibers waiting, {} KiB stacks)",
                (after - before) as f64 / IDLE as f64 / 1024.0,
                scheduler::DEFAULT_STACK_SIZE / 1024
            );
            gate.notify_all();
            drop(s);
        })
        .expect("a stack");
    sched.run().expect("every fiber finishes");
}

/// Heap bytes per task with [`IDLE`] tasks waiting: everything spawning
/// a task allocates (its future, its table entry, its handle's result
/// slot) and keeps while the task waits.
fn idle_tasks() {
    let exec = Executor::new().expect("an epoll instance");
    let handle = exec.handle();
    let report = exec.block_on(async move {
        // The handles' slots are allocated and written first: their pages
        // are the spawner's, not the tasks'.
        let mut tasks: Vec<Option<_>> = (0..IDLE).map(|_| None).collect();
        let before = live_bytes();
        for slot in &mut tasks {
            // Each waits until polled a second time: one trip through the
            // ready queue after this loop yields.
            *slot = Some(handle.spawn(YieldOnce(false)));
        }
        let after = live_bytes();
        for task in tasks.into_iter().flatten() {
            task.await.expect("no panic");
        }
        (after - before) as f64 / IDLE as f64
    });
    println!(
        "fibers/executor/bytes_per_task: {:.0} bytes of heap ({IDLE} tasks spawned and waiting)",
        report.expect("the tasks finish")
    );
}

/// This process's resident memory, from `/proc/self/statm` (its second
/// field, in pages of 4 KiB on this machine's x86-64 Linux).
fn resident_bytes() -> i64 {
    const PAGE: i64 = 4096;
    let statm = std::fs::read_to_string("/proc/self/statm").expect("Linux has /proc/self/statm");
    let pages: i64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("statm's second field is the resident page count");
    pages * PAGE
}

criterion_group!(benches, fibers);
criterion_main!(benches);
