//! What one wait costs as the number of watched descriptors grows, on each
//! backend: the measurement behind chapter 4's table.
//!
//! For each N, the selector watches N idle descriptors (copies of one empty
//! pipe's read end) plus one busy pipe, opened last so it has the *highest*
//! number: `select` must scan every bit below it. One round writes a byte
//! into the busy pipe, waits (which returns at once with one event) and
//! reads the byte back, like a connection receiving a reply; the write and
//! the read cost the same on every backend, so what grows with N is the
//! price of watching N descriptors to learn about one. (Writing a new byte
//! each round matters for epoll: being edge-triggered, it reports a pipe
//! that *stays* readable only once.)
//!
//! ```text
//! cargo run --release -p select --example fdcost
//! cargo run --release -p select --example fdcost -- --out book/src/figures/ch04-fdcost.md
//! ```
//!
//! Timings on a shared machine are noisy: each figure is the median of
//! several batches, and the ratios between rows matter more than the
//! microseconds.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::time::{Duration, Instant};

use select::event::{Interest, Token};
use select::fd_set::FD_SETSIZE;
use select::{Backend, Selector};

/// The descriptor counts measured. The largest stays below `FD_SETSIZE`
/// (with the few descriptors every process has), so `select` can take part.
const SIZES: [usize; 6] = [10, 50, 100, 250, 500, 1000];
/// Batches per figure; the median batch is reported.
const BATCHES: usize = 7;
/// About how long one batch runs, so large N get fewer waits.
const BATCH_TIME: Duration = Duration::from_millis(40);

fn main() -> io::Result<()> {
    let out = std::env::args().skip_while(|a| a != "--out").nth(1);
    testbed::limits::raise_fd_limit()?;
    let mut table = String::from(
        "| descriptors watched | select (µs per round) | poll (µs per round) | epoll (µs per round) |\n\
         |---:|---:|---:|---:|\n",
    );
    for n in SIZES {
        let mut row = format!("| {n} |");
        for backend in Backend::ALL {
            match cost_of_one_wait(backend, n)? {
                Some(micros) => row.push_str(&format!(" {micros:.2} |")),
                None => row.push_str(" — (fd ≥ FD_SETSIZE) |"),
            }
        }
        println!("{row}");
        table.push_str(&row);
        table.push('\n');
    }
    let command = "cargo run --release -p select --example fdcost";
    let text = format!("{table}\n<p class=\"figure-command\"><code>{command}</code></p>\n");
    if let Some(path) = out {
        std::fs::File::create(&path)?.write_all(text.as_bytes())?;
        println!("written to {path}");
    }
    Ok(())
}

/// Median time of one wait, in µs, over `n` idle descriptors and one ready
/// one; `None` if `select` cannot watch the descriptors this needs.
fn cost_of_one_wait(backend: Backend, n: usize) -> io::Result<Option<f64>> {
    let (idle, _idle_writer) = io::pipe()?;
    let idle = OwnedFd::from(idle);
    let copies: Vec<OwnedFd> = (0..n)
        .map(|_| idle.try_clone())
        .collect::<io::Result<_>>()?;
    // Opened last, so its read end has the highest registered number.
    let (mut ready, mut ready_writer) = io::pipe()?;

    let mut selector = Selector::new(backend)?;
    for (i, fd) in copies.iter().enumerate() {
        selector.add(fd.as_fd(), Token::new(i), Interest::Read)?;
    }
    match selector.add(ready.as_fd(), Token::new(n), Interest::Read) {
        Err(e) if select::fd_set::is_fd_too_high(&e) => return Ok(None),
        other => other?,
    }
    debug_assert!(backend != Backend::Select || n < FD_SETSIZE);

    let mut events = Vec::new();
    let mut byte = [0u8; 1];
    let mut round = |events: &mut Vec<_>| -> io::Result<()> {
        ready_writer.write_all(b"x")?;
        selector.wait(events, Some(Duration::ZERO))?;
        ready.read_exact(&mut byte)
    };
    // Calibrate: how many rounds fill one batch.
    let start = Instant::now();
    let mut calibration = 0u32;
    while start.elapsed() < BATCH_TIME / 4 {
        round(&mut events)?;
        assert_eq!(events.len(), 1, "exactly the busy pipe");
        calibration += 1;
    }
    let per_batch = calibration.saturating_mul(4).max(10);

    let mut batches: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per_batch {
                round(&mut events)?;
            }
            Ok(start.elapsed().as_secs_f64() * 1e6 / f64::from(per_batch))
        })
        .collect::<io::Result<_>>()?;
    batches.sort_by(f64::total_cmp);
    Ok(Some(batches[BATCHES / 2]))
}
