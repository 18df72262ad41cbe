//! `crowd`: many connections at once against the slow server, to measure
//! how it copes.
//!
//! ```text
//! cargo run --release -p testbed --example crowd -- --conns 5000 --latency 50ms
//! ```
//!
//! Opens `--conns` connections to an embedded server (or to `--server
//! ADDR`), sends `--rounds` requests on each (one at a time per connection,
//! all connections at once), and prints the wall time next to the ideal
//! (every connection served in parallel: rounds × mean latency), and the
//! server's own figures for how late its service times were.
//!
//! The client is deliberately naive, one thread with blocking sockets: it
//! writes a request on every connection, then reads the replies in order.
//! Reading in order costs nothing here, since the replies all arrive about
//! one latency after their requests; the point is to load the *server*.
//!
//! Not here: a benchmark of the stages (that is `bench`).

use std::error::Error;
use std::net::{SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use testbed::cli::parse_or_exit;

use testbed::conn::Conn;
use testbed::duration::format_duration;
use testbed::latency::LatencyModel;
use testbed::limits::raise_fd_limit;
use testbed::protocol::{ItemId, Payload, Reply, Request, ResultHash};
use testbed::server::{ServerConfig, SlowServer};

/// A client that gives up on a reply after this long: the server is slow
/// on purpose, but not *that* slow.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// How often to look whether the embedded server has accepted everyone.
const POLL_ACCEPTED: Duration = Duration::from_millis(1);

/// Many connections at once against the slow server.
#[derive(Debug, Parser)]
struct Args {
    /// Connections to open, all at the same time.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    conns: u64,
    /// Requests per connection, one after the other.
    #[arg(long, value_name = "N", default_value_t = 1)]
    rounds: u64,
    /// Latency of the embedded server (10ms, uniform:1ms..20ms, exp:10ms,
    /// bimodal:0.1:100ms:5ms).
    #[arg(long, value_name = "SPEC", default_value = "50ms")]
    latency: LatencyModel,
    /// Use the slow server at this address instead of an embedded one.
    #[arg(long, value_name = "ADDR")]
    server: Option<SocketAddr>,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("crowd: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn Error>> {
    let fds = raise_fd_limit()?;
    let server = match args.server {
        Some(_) => None,
        None => Some(SlowServer::spawn(ServerConfig {
            latency: args.latency,
            ..ServerConfig::default()
        })?),
    };
    let addr = match (&server, args.server) {
        (Some(server), _) => server.addr(),
        (None, Some(addr)) => addr,
        (None, None) => unreachable!("one of the two is always set"),
    };
    match &server {
        Some(_) => println!(
            "crowd: {} connections x {} requests, embedded server on {addr} (latency {}), {fds} descriptors allowed",
            args.conns, args.rounds, args.latency
        ),
        None => println!(
            "crowd: {} connections x {} requests, server at {addr}, {fds} descriptors allowed",
            args.conns, args.rounds
        ),
    }

    let start = Instant::now();
    let mut conns = Vec::new();
    for _ in 0..args.conns {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(IO_TIMEOUT))?;
        stream.set_nodelay(true)?;
        conns.push(Conn::new(stream));
    }
    // Measure the requests, not the server starting its threads.
    if let Some(server) = &server {
        while server.stats().accepted < args.conns {
            std::thread::sleep(POLL_ACCEPTED);
        }
    }
    println!(
        "connect:  {} connections open in {}",
        args.conns,
        format_duration(start.elapsed())
    );

    let payload = Payload::new("crowd").expect("a valid payload");
    let request = |conn: u64, round: u64| {
        let id = ItemId(conn * args.rounds + round);
        (
            Request::Get(id, payload.clone()),
            ResultHash::of(id, &payload),
        )
    };
    let start = Instant::now();
    for (i, conn) in (0..).zip(&mut conns) {
        conn.send(&request(i, 0).0)?;
    }
    let mut wrong = 0;
    for round in 0..args.rounds {
        for (i, conn) in (0..).zip(&mut conns) {
            if conn.recv()? != Reply::Success(request(i, round).1) {
                wrong += 1;
            }
            if round + 1 < args.rounds {
                conn.send(&request(i, round + 1).0)?;
            }
        }
    }
    let wall = start.elapsed();
    let ideal = args.latency.mean() * u32::try_from(args.rounds)?;
    println!(
        "requests: {} answered in {} wall (ideal {}: all connections in parallel), {wrong} wrong",
        args.conns * args.rounds,
        format_duration(wall),
        format_duration(ideal),
    );
    drop(conns);

    if let Some(server) = server {
        let stats = server.shutdown();
        let s = stats.service;
        let us = |n: u64| format_duration(Duration::from_micros(n));
        println!(
            "server:   peak {} connections, overshoot p50 {} p99 {} max {} (mean service {})",
            stats.peak_conns,
            us(s.overshoot_p50_us),
            us(s.overshoot_p99_us),
            us(s.overshoot_max_us),
            stats
                .mean_service_time()
                .map_or_else(|| "-".to_owned(), format_duration),
        );
    }
    if wrong > 0 {
        return Err(format!("{wrong} wrong answers").into());
    }
    Ok(())
}
