//! Wakers: woken from another thread (interrupting `epoll_wait`), woken
//! twice and polled once, woken after the task is gone.

use std::cell::Cell;
use std::future::poll_fn;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use executor::Executor;

use crate::util::{HANG, block_on, within};

/// A `Waker` crosses threads whatever the executor: the type says so.
#[test]
fn wakers_are_send_and_sync() {
    fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<Waker>();
}

/// The scheduling state of a thread of this process: `S` while it sleeps
/// in a system call.
fn thread_state(thread: &Path) -> Option<char> {
    let stat = std::fs::read_to_string(thread.join("stat")).ok()?;
    // `tid (comm) S ...`: the name may hold spaces, the state follows it.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// Waits (pacing with short sleeps, bounded) until `thread` sleeps.
fn until_asleep(thread: &Path) {
    let deadline = Instant::now() + HANG;
    while thread_state(thread) != Some('S') {
        assert!(
            Instant::now() < deadline,
            "the executor never went to sleep"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The executor's only way to sleep is `epoll_wait`, and here nothing it
/// watches will ever move: only the self-pipe can end that wait. Another
/// thread waits until the executor's thread is asleep (its state in
/// `/proc`), then wakes the future; the run finishing, with one interrupt
/// counted, is the proof.
#[test]
fn a_waker_woken_from_another_thread_interrupts_epoll_wait() {
    let interrupts = within("executor-under-test", || {
        // This thread, as `/proc` names it, for the other thread to watch.
        let me: PathBuf = std::fs::read_link("/proc/thread-self").expect("Linux's /proc");
        let me = Path::new("/proc").join(me);
        let executor = Executor::new().expect("an executor");
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let done = Arc::new(AtomicBool::new(false));
        let waking = {
            let done = done.clone();
            std::thread::spawn(move || {
                let waker = waker_rx
                    .recv_timeout(HANG)
                    .expect("the future sends its waker");
                until_asleep(&me);
                done.store(true, Ordering::Release);
                waker.wake();
            })
        };
        let mut sent = false;
        executor
            .block_on(poll_fn(|cx| {
                if done.load(Ordering::Acquire) {
                    return Poll::Ready(());
                }
                if !sent {
                    waker_tx
                        .send(cx.waker().clone())
                        .expect("the thread listens");
                    sent = true;
                }
                Poll::Pending
            }))
            .expect("not stuck: another thread holds a waker");
        waking.join().expect("the waking thread ends");
        executor.stats().interrupts
    });
    assert_eq!(interrupts, 1);
}

#[test]
fn a_task_woken_twice_before_it_runs_is_polled_once() {
    let polls = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let polls = Rc::new(Cell::new(0));
            let counted = polls.clone();
            let task = handle.spawn(poll_fn(move |cx| {
                counted.set(counted.get() + 1);
                if counted.get() == 1 {
                    cx.waker().wake_by_ref();
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Ready(())
            }));
            task.await.expect("the task finishes");
            polls.get()
        }
    });
    assert_eq!(polls, 2, "the first poll, then one for both wakes");
}

#[test]
fn wakes_of_one_task_are_coalesced_and_counted() {
    let stats = within("coalesced", || {
        let executor = Executor::new().expect("an executor");
        let mut polls = 0;
        executor
            .block_on(poll_fn(|cx| {
                polls += 1;
                if polls == 1 {
                    for _ in 0..3 {
                        cx.waker().wake_by_ref();
                    }
                    return Poll::Pending;
                }
                Poll::Ready(())
            }))
            .expect("the future finishes");
        executor.stats()
    });
    assert_eq!(stats.polls, 2);
    // `block_on`'s own first wake, then three: the last two absorbed.
    assert_eq!((stats.wakes, stats.wakes_coalesced), (4, 2));
}

#[test]
fn waking_a_finished_task_is_harmless() {
    within("finished", || {
        let executor = Executor::new().expect("an executor");
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let task = executor.spawn(poll_fn(move |cx| {
            let _ = waker_tx.send(cx.waker().clone());
            Poll::Ready(7)
        }));
        assert_eq!(executor.block_on(task).expect("runs"), Ok(7));
        let polls = executor.stats().polls;
        let waker = waker_rx.try_recv().expect("the task sent its waker");
        waker.wake_by_ref();
        // From another thread too: it queues a number nobody answers to.
        std::thread::scope(|s| {
            s.spawn(|| waker.wake_by_ref());
        });
        executor.block_on(async {}).expect("runs");
        // Only the new root future was polled.
        assert_eq!(executor.stats().polls, polls + 1);
    });
}
