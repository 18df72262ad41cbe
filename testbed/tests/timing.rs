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
//! It also checks, since nothing else runs in this process, that a stopped
//! server leaves no thread behind.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use testbed::conn::Conn;
use testbed::forked::thread_count;
use testbed::limits::raise_fd_limit;
use testbed::protocol::{ItemId, Payload, Reply, Request, ResultHash};
use testbed::server::{ServerConfig, ServerStats, SlowServer};

/// Concurrent connections.
const CONNS: u64 = 1_000;

/// Requests per connection, one after the other. A handful is enough for a
/// p99 over thousands of samples, and keeps the test short.
const ROUNDS: u64 = 3;

/// Requests per second the client offers, evenly spaced. Every thread that
/// wakes up to answer costs CPU (two context switches, a loopback write, a
/// read), and this 2-core machine serves about 33,000 requests per second
/// end to end in a debug build (48,000 in release; `crowd --latency 0`).
/// Beyond that, replies queue for a CPU and the test would measure the
/// queue, not the timer: 1,000 requests in flight at 1 ms latency would be
/// a million per second. So the 1,000 connections stay open while requests
/// arrive at a rate well within the machine's reach.
const OFFERED_RATE: u32 = 10_000;

/// The promise: `thread::sleep` overshoots by about 0.1 ms; a 1 ms timer
/// wheel would not pass this.
const MAX_P99: Duration = Duration::from_micros(500);

/// Attempts per latency. On a shared machine another process (a compiler)
/// can hold both CPUs just when a server thread's timer fires: a real delay,
/// but not the server's. Such noise only ever *adds* to the overshoot, so
/// the best of a few attempts is a fair measure of the server itself; the
/// test fails only if every attempt misses.
const ATTEMPTS: u32 = 5;

/// Timeout on every client socket, so a broken server fails the test.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

#[test]
fn overshoot_p99_stays_below_half_a_millisecond_with_1000_connections() -> io::Result<()> {
    raise_fd_limit()?;
    let threads_before = thread_count()?;
    for latency in ["1ms", "10ms"] {
        let mut best = Duration::MAX;
        for attempt in 1..=ATTEMPTS {
            let stats = crowd(latency)?;
            let service = stats.service;
            // Visible with `cargo test --test timing -- --nocapture`.
            println!(
                "latency {latency}, attempt {attempt}: {} served, overshoot p50 {}us p99 {}us max {}us",
                service.count,
                service.overshoot_p50_us,
                service.overshoot_p99_us,
                service.overshoot_max_us
            );
            assert_eq!(service.count, CONNS * ROUNDS);
            assert_eq!(stats.peak_conns, CONNS);
            best = best.min(Duration::from_micros(service.overshoot_p99_us));
            if best < MAX_P99 {
                break;
            }
        }
        assert!(
            best < MAX_P99,
            "latency {latency}: overshoot p99 {best:?} at best in {ATTEMPTS} attempts"
        );
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
