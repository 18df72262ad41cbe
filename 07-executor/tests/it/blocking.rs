//! `Handle::spawn_blocking`: the result comes back, the loop goes on
//! meanwhile, a panic is reported, a dropped handle harms nothing.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use executor::{BlockingError, Executor};

use crate::util::block_on;

#[test]
fn the_result_of_the_job_arrives() {
    let result =
        block_on(|executor: &Executor| executor.handle().spawn_blocking(|| (1..=100).sum::<u64>()));
    assert_eq!(result, Ok(5050), "the job's sum comes back");
}

#[test]
fn a_timer_keeps_firing_on_time_while_a_job_blocks_for_100_ms() {
    const TICK: Duration = Duration::from_millis(5);
    const JOB: Duration = Duration::from_millis(100);
    let (worst, ticks) = block_on(|executor: &Executor| {
        let handle = executor.handle();
        async move {
            let ticker = handle.clone();
            let ticks = handle.spawn(async move {
                let (mut worst, mut ticks) = (Duration::ZERO, 0);
                let started = Instant::now();
                // Ticks for longer than the job runs: each one's lateness.
                while started.elapsed() < JOB + 4 * TICK {
                    let due = Instant::now() + TICK;
                    ticker.sleep_until(due).await;
                    worst = worst.max(due.elapsed());
                    ticks += 1;
                }
                (worst, ticks)
            });
            // The ticker is under way before the job starts.
            handle.sleep(TICK).await;
            let job = handle.spawn_blocking(|| std::thread::sleep(JOB));
            job.await.expect("the job does not panic");
            ticks.await.expect("the ticker does not panic")
        }
    });
    assert!(
        ticks >= 2,
        "the ticker ran while the job did: {ticks} ticks"
    );
    // Blocking the loop would make one tick late by the whole job.
    assert!(
        worst < JOB / 2,
        "a tick was {worst:?} late while the job blocked for {JOB:?}: the loop was blocked"
    );
}

#[test]
fn a_panic_in_the_job_is_the_handles_error() {
    let result = block_on(|executor: &Executor| {
        executor
            .handle()
            .spawn_blocking(|| -> u8 { panic!("the disk is gone") })
    });
    assert_eq!(
        result,
        Err(BlockingError::Panicked("the disk is gone".into())),
        "the panic's message comes back as the handle's error"
    );
}

#[test]
fn a_dropped_handle_lets_the_job_run_and_nothing_panics() {
    let (ran_tx, ran_rx) = mpsc::channel();
    let (later, dropped) = block_on(move |executor: &Executor| {
        let handle = executor.handle();
        async move {
            let (go_tx, go_rx) = mpsc::channel::<()>();
            let job = handle.spawn_blocking(move || {
                // Waits until the handle has been polled once and dropped.
                go_rx.recv().expect("the test sends");
                ran_tx.send(()).expect("the test listens");
                "thrown away"
            });
            let mut job = Box::pin(job);
            let polled = std::future::poll_fn(|cx| {
                std::task::Poll::Ready(job.as_mut().poll(cx).is_pending())
            })
            .await;
            drop(job);
            go_tx.send(()).expect("the job listens");
            // The executor goes on with other work.
            let later = handle.spawn_blocking(|| 7).await;
            (later, polled)
        }
    });
    ran_rx
        .recv_timeout(Duration::from_secs(5))
        .expect("the job of the dropped handle still ran");
    assert!(dropped, "the handle was pending when it was dropped");
    assert_eq!(later, Ok(7), "a later job works as usual");
}

#[test]
fn many_jobs_at_once_all_come_back() {
    const JOBS: usize = 200;
    let ran = Arc::new(AtomicUsize::new(0));
    let counted = ran.clone();
    let sum = block_on(move |executor: &Executor| {
        let handle = executor.handle();
        async move {
            let jobs: Vec<_> = (0..JOBS)
                .map(|n| {
                    let ran = counted.clone();
                    handle.spawn_blocking(move || {
                        std::thread::sleep(Duration::from_micros(200));
                        ran.fetch_add(1, Ordering::Relaxed);
                        n
                    })
                })
                .collect();
            let mut sum = 0;
            for job in jobs {
                sum += job.await.expect("no job panics");
            }
            sum
        }
    });
    assert_eq!(sum, JOBS * (JOBS - 1) / 2, "every job's result came back");
    assert_eq!(ran.load(Ordering::Relaxed), JOBS, "every job ran once");
}
