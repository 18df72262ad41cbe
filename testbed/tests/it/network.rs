//! The faults real networks have, seen from a client: a reset, a
//! connection gone silent, an outage window, an idle timeout, a server out
//! of descriptors.
//!
//! The outage is a matter of time, so its test is written in terms of what
//! the test itself can know: the server starts after `t0`, so its window
//! starts no earlier than `t0 + START` and ends no earlier than
//! `t0 + START + LENGTH`. An assertion that depends on being inside the
//! window is made only when the clock says the test is inside it.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testbed::faults::Fault;
use testbed::framing::LineError;
use testbed::outage::Outage;
use testbed::protocol::{ItemId, Phase};
use testbed::server::{ServerConfig, SlowServer};
use testbed::testing::{KillOnDrop, limit_descriptors};

use crate::util::{Client, IO_TIMEOUT, config, expect_closed, expect_line, success, wait_for};

/// A connection whose next read must fail with a reset.
#[track_caller]
fn expect_reset(client: &mut Client) {
    match client.read_line() {
        Err(LineError::Io(e)) if e.kind() == io::ErrorKind::ConnectionReset => {}
        other => panic!("expected a reset (ECONNRESET), got {other:?}"),
    }
}

#[test]
fn reset_is_an_error_where_drop_is_an_end_of_stream() -> io::Result<()> {
    let reset = SlowServer::spawn(config("0", "reset=1", 1))?;
    let mut client = Client::connect(reset.addr())?;
    client.send("GET 1 a")?;
    expect_reset(&mut client);
    assert_eq!(reset.shutdown().faults_of(Fault::Reset), 1);

    let dropped = SlowServer::spawn(config("0", "drop=1", 1))?;
    let mut client = Client::connect(dropped.addr())?;
    client.send("GET 1 a")?;
    expect_closed(&mut client);
    Ok(())
}

#[test]
fn a_blackhole_stops_reading_and_never_closes_where_hang_notices_the_client() -> io::Result<()> {
    const SEED: u64 = 3;
    let config = config("0", "hang=0.5,blackhole=0.5", SEED);
    let decide = |id| config.faults.decide(SEED, ItemId(id), Phase::Get);
    let find = |fault| {
        (0..)
            .find(|&id| decide(id) == Some(fault))
            .expect("the plan has both")
    };
    let server = SlowServer::spawn(config)?;

    let mut silent = Client::connect(server.addr())?;
    silent.send(&format!("GET {} a", find(Fault::Blackhole)))?;
    let mut hung = Client::connect(server.addr())?;
    hung.send(&format!("GET {} a", find(Fault::Hang)))?;
    wait_for("both faults", || {
        let stats = server.stats();
        stats.faults_of(Fault::Blackhole) == 1 && stats.faults_of(Fault::Hang) == 1
    });

    // A hung connection still reads (and discards) what comes; a
    // blackholed one reads nothing, so the client's writes pile up in the
    // buffers until they are full. 64 MiB is far more than loopback's
    // buffers hold.
    let flood = vec![b'x'; 1 << 20];
    let fill = |client: &Client| -> io::Result<()> {
        client
            .stream()
            .set_write_timeout(Some(Duration::from_millis(300)))?;
        for _ in 0..64 {
            client.stream().write_all(&flood)?;
        }
        Ok(())
    };
    fill(&hung)?;
    let stuck = fill(&silent).expect_err("nobody reads a blackholed connection");
    assert!(
        matches!(
            stuck.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
        ),
        "{stuck}"
    );

    // The silent client leaves first, then the hung one: the server notices
    // the second and never the first.
    drop(silent);
    drop(hung);
    wait_for("the hung connection to close", || {
        server.stats().active <= 1
    });
    assert_eq!(server.stats().active, 1, "the blackhole never closes");
    let stats = server.shutdown();
    assert_eq!(
        (stats.active, stats.panics),
        (0, 0),
        "until the server stops"
    );
    Ok(())
}

#[test]
fn the_idle_timeout_closes_silent_connections_and_blackholes() -> io::Result<()> {
    let idle = Duration::from_millis(100);
    let any: SocketAddr = ([127, 0, 0, 1], 0).into();
    let server = SlowServer::bind_with_idle_timeout(any, config("0", "none", 1), idle)?;
    let mut client = Client::connect(server.addr())?;
    client.send("GET 1 a")?;
    expect_line(&mut client, &success(1, "a"));
    // Then nothing: the server closes after `idle`, well within the
    // client's own read timeout.
    expect_closed(&mut client);
    assert_eq!(server.shutdown().idle_closed, 1);

    let server = SlowServer::bind_with_idle_timeout(any, config("0", "blackhole=1", 1), idle)?;
    let mut client = Client::connect(server.addr())?;
    client.send("GET 1 a")?;
    expect_closed(&mut client);
    assert_eq!(server.shutdown().idle_closed, 1);
    Ok(())
}

#[test]
fn an_outage_resets_open_connections_refuses_new_ones_then_serves_again() -> io::Result<()> {
    const START: Duration = Duration::from_millis(100);
    const LENGTH: Duration = Duration::from_millis(300);
    // Half the lines take a second, half no time: one of each is used.
    let base = config("bimodal:0.5:1s:0", "none", 1);
    let slow = |id: &u64| base.latency.sample(1, ItemId(*id), Phase::Get) > START;
    let (slow_id, fast_id) = (
        (0..).find(slow).expect("some lines are slow"),
        (0..).find(|id| !slow(id)).expect("some are fast"),
    );
    let t0 = Instant::now();
    let config = ServerConfig {
        faults: base.faults.with_outage(Some(Outage {
            start: START,
            length: LENGTH,
        })),
        ..base
    };
    let server = SlowServer::spawn(config)?;

    // In service when the outage begins: reset.
    let mut open = Client::connect(server.addr())?;
    open.send(&format!("GET {slow_id} a"))?;
    expect_reset(&mut open);
    assert!(
        t0.elapsed() >= START,
        "reset before the window: {:?}",
        t0.elapsed()
    );

    // During the window nothing listens: the kernel refuses the connect.
    if t0.elapsed() + Duration::from_millis(20) < START + LENGTH {
        let refused = TcpStream::connect(server.addr()).map(drop);
        assert_eq!(
            refused.map_err(|e| e.kind()),
            Err(io::ErrorKind::ConnectionRefused)
        );
    }

    // After it, on the same port, the server serves again.
    let deadline = Instant::now() + IO_TIMEOUT;
    let mut back = loop {
        match Client::connect(server.addr()) {
            Ok(client) => break client,
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                assert!(Instant::now() < deadline, "the server never came back");
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(e),
        }
    };
    assert!(
        t0.elapsed() >= START + LENGTH,
        "back too early: {:?}",
        t0.elapsed()
    );
    back.send(&format!("GET {fast_id} b"))?;
    expect_line(&mut back, &success(fast_id, "b"));
    let stats = server.shutdown();
    assert_eq!((stats.reset_by_outage, stats.panics), (1, 0));
    Ok(())
}

#[test]
fn a_listener_that_cannot_be_held_resets_what_it_accepts_during_the_outage() -> io::Result<()> {
    // Bound by someone else, without SO_REUSEPORT: the port cannot be held
    // by a second socket, so the server keeps listening and resets.
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let outage = Outage {
        start: Duration::ZERO,
        length: Duration::from_secs(30),
    };
    let config = ServerConfig {
        faults: config("0", "none", 1).faults.with_outage(Some(outage)),
        ..config("0", "none", 1)
    };
    let server = SlowServer::from_listener(listener, config)?;
    let mut client = Client::connect(server.addr())?;
    // The reset may come before or after the request is written: either
    // the write or the read fails, and no reply ever comes.
    let answered = client.send("GET 1 a").is_ok() && matches!(client.read_line(), Ok(Some(_)));
    assert!(!answered, "nothing is served during an outage");
    wait_for("the reset to be counted", || {
        server.stats().reset_by_outage == 1
    });
    Ok(())
}

/// The server's descriptor limit in the out-of-descriptors test: few
/// enough that the test fills them in milliseconds.
const LIMIT: u64 = 48;

/// The server's idle timeout in that test: its idle connections hold every
/// descriptor until it closes them.
const IDLE: Duration = Duration::from_secs(1);

#[test]
fn out_of_descriptors_the_server_says_503_and_recovers_by_its_idle_timeout() -> io::Result<()> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_slow-server"));
    command
        .args([
            "--listen",
            "127.0.0.1:0",
            "--latency",
            "0",
            "--idle-timeout",
            "1s",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Killed however the test ends, a failed assertion included.
    let mut server = KillOnDrop::spawn(limit_descriptors(&mut command, LIMIT))?;
    let starved = starve_then_recover(&mut server);
    let _ = server.kill();
    let output = server.into_inner().wait_with_output()?;
    let starved = starved?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let said = stderr
        .lines()
        .filter(|l| l.contains("out of descriptors"))
        .count();
    if starved.burst >= IDLE / 2 {
        // A machine so loaded that the idle timeout could close connections
        // before the burst was over: the server then served some and ran
        // out again, a second episode. Only the first is certain.
        assert!(said >= 1, "the shortage is said:\n{stderr}");
        eprintln!(
            "the burst took {:?}: episodes and CPU not checked",
            starved.burst
        );
        return Ok(());
    }
    assert_eq!(said, 1, "one line per shortage:\n{stderr}");
    // Out of descriptors with nobody waiting, `accept` still says `EMFILE`:
    // a server that retried at once would spin a core until the idle
    // timeout. It waits in `poll` instead.
    assert!(
        starved.cpu < starved.wall / 4,
        "the starved server used {:?} of CPU in {:?}",
        starved.cpu,
        starved.wall
    );
    Ok(())
}

/// What [`starve_then_recover`] saw.
struct Starved {
    /// From the first connection of the burst to the `503` on its last.
    burst: Duration,
    /// From then until the server served again.
    wall: Duration,
    /// The CPU time the server used meanwhile.
    cpu: Duration,
}

fn starve_then_recover(server: &mut std::process::Child) -> io::Result<Starved> {
    let mut first = String::new();
    let stdout = server.stdout.as_mut().expect("stdout is piped");
    let mut byte = [0u8; 1];
    while stdout.read(&mut byte)? == 1 && byte[0] != b'\n' {
        first.push(char::from(byte[0]));
    }
    let addr: SocketAddr = first
        .strip_prefix("slow-server listening on ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"));

    // A burst of idle connections, twice the limit, in a few milliseconds
    // (far less than the idle timeout): the last ones find no descriptor.
    // All of them stay open here until the end: closing one would give the
    // server a descriptor back before it reached the last.
    let started = Instant::now();
    let mut burst: Vec<Client> = (0..2 * LIMIT)
        .map(|_| Client::connect(addr))
        .collect::<io::Result<_>>()?;
    let last = burst.last_mut().expect("a burst of connections");
    expect_line(last, "503 out of descriptors");
    let burst_took = started.elapsed();
    let starved_at = Instant::now();
    let cpu_before = cpu_time(server.id());

    // The idle connections are closed by the idle timeout (while the burst
    // is still open on this side), and a client that talks is served again.
    let deadline = Instant::now() + IO_TIMEOUT;
    loop {
        let mut client = Client::connect(addr)?;
        client.send("GET 7 a")?;
        match client.read_line() {
            Ok(Some(line)) if line == success(7, "a") => {
                return Ok(Starved {
                    burst: burst_took,
                    wall: starved_at.elapsed(),
                    cpu: cpu_time(server.id()).saturating_sub(cpu_before),
                });
            }
            Ok(Some(line)) if line == "503 out of descriptors" => {}
            other => panic!("expected a reply or a 503, got {other:?}"),
        }
        assert!(Instant::now() < deadline, "the server never recovered");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The CPU time `pid` has used, user and system, all threads: `stat`'s
/// fields 14 and 15, counted after the command name (in parentheses, and
/// it may hold spaces), in clock ticks: `USER_HZ`, which Linux reports as
/// 100 a second whatever its internal tick rate.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the server is running");
    let fields: Vec<&str> = stat[stat.rfind(')').expect("a command name") + 1..]
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11..13]
        .iter()
        .map(|field| field.parse::<u64>().expect("a tick count"))
        .sum();
    Duration::from_millis(ticks * 10)
}
