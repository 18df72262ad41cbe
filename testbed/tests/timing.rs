//! How precisely the slow server applies its latency under load.
//!
//! This is a test binary of its own, with a single test, on purpose: cargo
//! runs test binaries one after the other, so nothing else runs beside it to
//! steal the CPU from the server's threads and blur what is measured.
//!
//! The overshoot (applied minus nominal service time) is measured by the
//! server itself ([`testbed::server::ServiceStats`]); the client here only
//! has to keep 1,000 connections busy. It is deliberately simple: one
//! thread, blocking sockets, requests sent at an even pace
//! ([`OFFERED_RATE`]) round-robin over all connections, each connection's
//! previous reply read just before its next request.
//!
//! On a shared virtual machine a miss can be the machine's fault: another
//! process, or the hypervisor, holding the CPUs when a timer fires. So an
//! attempt counts against the server only when it was quiet: no other
//! process used the CPUs, and a probe thread doing a plain `thread::sleep`
//! beside the server woke up on time. A server on a 1 ms timer wheel misses
//! quiet attempts (its p50 alone is half a millisecond late); a busy
//! machine makes the test say it could not judge, not fail.
//!
//! It also checks, since nothing else runs in this process, that a stopped
//! server leaves no thread behind.

use std::fs;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use testbed::conn::Conn;
use testbed::forked::thread_count;
use testbed::limits::raise_fd_limit;
use testbed::machine::MachineTicks;
use testbed::protocol::{ItemId, Payload, Reply, Request, ResultHash};
use testbed::server::{ServerConfig, ServerStats, SlowServer};

/// Concurrent connections.
const CONNS: u64 = 1_000;

/// Requests per connection, one after the other. A couple is enough for a
/// p99 over thousands of samples, and keeps each attempt short.
const ROUNDS: u64 = 2;

/// Requests per second the client offers, evenly spaced. Every thread that
/// wakes up to answer costs CPU (two context switches, a loopback write, a
/// read), and this 2-core machine serves about 33,000 requests per second
/// end to end in a debug build (48,000 in release; `crowd --latency 0`),
/// less when the hypervisor is busy. Beyond that, replies queue for a CPU
/// and the test would measure the queue, not the timer: 1,000 requests in
/// flight at 1 ms latency would be a million per second. So the 1,000
/// connections stay open while requests arrive at a rate far within the
/// machine's reach (10,000 per second was not, on a busy day).
const OFFERED_RATE: u32 = 5_000;

/// The promise: `thread::sleep` overshoots by tens of microseconds; a 1 ms
/// timer wheel would not pass this.
const MAX_P99: Duration = Duration::from_micros(500);

/// Attempts per latency. The first one passes on a quiet machine; more are
/// for a shared one, where other processes (compilers) can hold both CPUs
/// just when a server thread's timer fires: a real delay, but not the
/// server's. Such noise only ever *adds* to the overshoot, so one attempt
/// below [`MAX_P99`] is enough to pass.
const ATTEMPTS: u32 = 10;

/// An attempt during which other processes used more CPU than this (in
/// CPUs: 0.1 is a tenth of one) was disturbed: its miss says nothing about
/// the server. Measured here, a competing compiler using half a CPU is
/// enough to push the p99 into milliseconds, since a woken thread may wait
/// a scheduler slice for a CPU.
const MAX_FOREIGN_CPU: f64 = 0.1;

/// How often the probe ([`Probe`]) asks for a wake-up: it sleeps this long
/// in a loop, beside the server, and records how late each wake-up was.
const PROBE_SLEEP: Duration = Duration::from_millis(1);

/// The test fails only if every attempt missed and at least this many of
/// them were undisturbed. A slow server misses every quiet attempt; the
/// disturbance measure is coarse (10 ms ticks), so on a busy machine one or
/// two disturbed attempts may pass for quiet. If too few attempts were
/// quiet, the test says it could not judge instead of failing.
const MIN_QUIET_MISSES: u32 = 3;

/// The unit of the CPU times in `/proc` (USER_HZ): 100 per second on Linux.
const TICKS_PER_SEC: f64 = 100.0;

/// Timeout on every client socket, so a broken server fails the test.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

#[test]
fn overshoot_p99_stays_below_half_a_millisecond_with_1000_connections() -> io::Result<()> {
    raise_fd_limit()?;
    let threads_before = thread_count()?;
    for latency in ["1ms", "10ms"] {
        let mut passed = false;
        let mut undisturbed_misses = 0;
        for attempt in 1..=ATTEMPTS {
            let (before, start) = (CpuTicks::now()?, Instant::now());
            let probe = Probe::start();
            let stats = crowd(latency)?;
            let probe_p99 = probe.stop_p99();
            let foreign = before.foreign_cpus_since(start)?;
            let service = stats.service;
            // Visible with `cargo test --test timing -- --nocapture`.
            println!(
                "latency {latency}, attempt {attempt}: {} served, overshoot p50 {}us p99 {}us \
                 max {}us; other processes used {foreign:.2} CPUs; a plain sleep's p99 \
                 overshoot {}us",
                service.count,
                service.overshoot_p50_us,
                service.overshoot_p99_us,
                service.overshoot_max_us,
                probe_p99.as_micros()
            );
            assert_eq!(service.count, CONNS * ROUNDS);
            assert_eq!(stats.peak_conns, CONNS);
            if Duration::from_micros(service.overshoot_p99_us) < MAX_P99 {
                passed = true;
                break;
            }
            // Quiet means nobody else took the CPUs *and* a plain
            // `thread::sleep` beside the server woke up on time: the second
            // catches what the first cannot see (a hypervisor that slows
            // our virtual CPUs without counting it as steal).
            if foreign < MAX_FOREIGN_CPU && probe_p99 < MAX_P99 {
                undisturbed_misses += 1;
            }
        }
        assert!(
            passed || undisturbed_misses < MIN_QUIET_MISSES,
            "latency {latency}: overshoot p99 >= {MAX_P99:?} in all {ATTEMPTS} attempts, \
             {undisturbed_misses} of them with the machine to ourselves"
        );
        if !passed {
            println!(
                "latency {latency}: not judged, the machine itself was late \
                 (other processes, or the hypervisor, kept taking the CPUs)"
            );
        }
    }
    // Every server thread was joined: none is left behind. (A joined thread
    // may linger in /proc for a moment while the kernel releases it.)
    let deadline = Instant::now() + IO_TIMEOUT;
    while thread_count()? != threads_before {
        assert!(Instant::now() < deadline, "server threads left behind");
        thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// CPU time used so far, in ticks: by the whole machine, and by this
/// process. The difference is what other processes took from us.
#[derive(Debug, Clone, Copy)]
struct CpuTicks {
    machine: u64,
    ours: u64,
}

impl CpuTicks {
    fn now() -> io::Result<CpuTicks> {
        let bad = || io::Error::new(io::ErrorKind::InvalidData, "unexpected /proc format");
        // Busy is every state but idle and iowait; steal, time the
        // hypervisor gave to other machines, is someone else's too.
        let machine = MachineTicks::now().ok_or_else(bad)?.busy();
        // `pid (comm) state ...`: utime and stime are the 14th and 15th
        // fields, the 12th and 13th after the command name (which may
        // contain spaces, hence the split at the last parenthesis).
        let own = fs::read_to_string("/proc/self/stat")?;
        let after_comm = own.rsplit_once(')').ok_or_else(bad)?.1;
        let times: Vec<u64> = after_comm
            .split_whitespace()
            .skip(11)
            .take(2)
            .map(|field| field.parse().map_err(|_| bad()))
            .collect::<io::Result<_>>()?;
        Ok(CpuTicks {
            machine,
            ours: times.iter().sum(),
        })
    }

    /// How many CPUs other processes kept busy, on average, since `self`
    /// was taken at `start`.
    fn foreign_cpus_since(self, start: Instant) -> io::Result<f64> {
        let now = CpuTicks::now()?;
        let machine = now.machine.saturating_sub(self.machine);
        let ours = now.ours.saturating_sub(self.ours);
        let foreign = machine.saturating_sub(ours) as f64 / TICKS_PER_SEC;
        Ok(foreign / start.elapsed().as_secs_f64())
    }
}

/// A thread that sleeps [`PROBE_SLEEP`] in a loop and notes how late each
/// wake-up was: the best any thread of this process could do meanwhile.
/// If even it is late, the machine was, and a late server says nothing.
struct Probe {
    stop: Arc<AtomicBool>,
    thread: thread::JoinHandle<Vec<Duration>>,
}

impl Probe {
    fn start() -> Probe {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = thread::spawn(move || {
            let mut late = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                let asked = Instant::now();
                thread::sleep(PROBE_SLEEP);
                late.push(asked.elapsed().saturating_sub(PROBE_SLEEP));
            }
            late
        });
        Probe { stop, thread }
    }

    /// Stops the probe and returns its p99 overshoot (zero if it never
    /// woke, which a run of any length rules out).
    fn stop_p99(self) -> Duration {
        self.stop.store(true, Ordering::Relaxed);
        let mut late = self.thread.join().expect("the probe does not panic");
        late.sort_unstable();
        let at = (late.len() * 99 / 100).min(late.len().saturating_sub(1));
        late.get(at).copied().unwrap_or_default()
    }
}

/// Runs [`ROUNDS`] requests on each of [`CONNS`] connections against a
/// fresh server, at [`OFFERED_RATE`], and returns its final statistics.
fn crowd(latency: &str) -> io::Result<ServerStats> {
    let server = SlowServer::spawn(ServerConfig {
        latency: latency.parse().expect("valid latency"),
        ..ServerConfig::default()
    })?;
    let mut conns = (0..CONNS)
        .map(|_| connect(server.addr()))
        .collect::<io::Result<Vec<_>>>()?;
    // Measure the requests, not the server starting its threads.
    while server.stats().accepted < CONNS {
        thread::sleep(Duration::from_millis(1));
    }
    let payload = Payload::new("t").expect("valid payload");
    let start = Instant::now();
    let gap = Duration::from_secs(1) / OFFERED_RATE;
    let mut send_times = (0..).map(|k| start + gap * k);
    for round in 0..ROUNDS {
        for (i, conn) in (0..).zip(&mut conns) {
            if round > 0 {
                // Sent a whole round ago: long since answered.
                expect_success(conn, ItemId((round - 1) * CONNS + i), &payload)?;
            }
            let at = send_times.next().expect("an endless iterator");
            thread::sleep(at.saturating_duration_since(Instant::now()));
            let id = ItemId(round * CONNS + i);
            conn.send(&Request::Get(id, payload.clone()))
                .map_err(io::Error::other)?;
        }
    }
    for (i, conn) in (0..).zip(&mut conns) {
        expect_success(conn, ItemId((ROUNDS - 1) * CONNS + i), &payload)?;
    }
    drop(conns);
    Ok(server.shutdown())
}

fn expect_success(conn: &mut Conn<TcpStream>, id: ItemId, payload: &Payload) -> io::Result<()> {
    let reply = conn.recv().map_err(io::Error::other)?;
    assert_eq!(reply, Reply::Success(ResultHash::of(id, payload)), "{id}");
    Ok(())
}

fn connect(addr: SocketAddr) -> io::Result<Conn<TcpStream>> {
    let stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_nodelay(true)?;
    Ok(Conn::new(stream))
}
