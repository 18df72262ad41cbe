//! Stopping the slow server: promptly, whatever its connections are doing
//! (hanging, idle, or in an endless service time), and closing its port.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use testbed::faults::Fault;
use testbed::latency::LatencyModel;
use testbed::server::{ServerConfig, SlowServer};

use crate::util::{Client, config, expect_closed, server, wait_for};

/// How long a prompt shutdown may take: far less than what it cuts short
/// (a hang, an endless or a 30 s service time), with room for a loaded
/// machine to join a few threads.
const PROMPT: Duration = Duration::from_secs(5);

#[test]
fn shutdown_is_prompt_closes_the_port_and_cuts_hanging_and_idle_connections() -> io::Result<()> {
    let server = SlowServer::spawn(config("0", "hang=1", 1))?;
    let addr = server.addr();
    let mut hanging = Client::connect(addr)?;
    hanging.send("GET 1 a")?;
    let mut idle = Client::connect(addr)?;
    wait_for("the hang and the idle connection", || {
        let stats = server.stats();
        stats.faults_of(Fault::Hang) == 1 && stats.accepted == 2
    });
    let start = Instant::now();
    let stats = server.shutdown();
    assert!(start.elapsed() < PROMPT, "{:?}", start.elapsed());
    assert_eq!(stats.active, 0);
    expect_closed(&mut hanging);
    expect_closed(&mut idle);
    expect_port_closed(addr);
    Ok(())
}

#[test]
fn an_endless_service_time_is_abandoned_promptly_at_shutdown() -> io::Result<()> {
    // Longer than `Instant` arithmetic allows (adding it would panic): the
    // server cuts it to MAX_SERVICE_TIME and waits without failing. (No
    // flag accepts it: built as a library caller could.)
    let endless = Duration::from_secs(9_300_000_000_000_000_000);
    let server = SlowServer::spawn(ServerConfig {
        latency: LatencyModel::Fixed(endless),
        ..config("1ms", "none", 1)
    })?;
    let mut client = in_service(&server)?;
    let start = Instant::now();
    let stats = server.shutdown();
    assert!(start.elapsed() < PROMPT, "{:?}", start.elapsed());
    assert_eq!((stats.panics, stats.service.count), (0, 0));
    expect_closed(&mut client);
    Ok(())
}

#[test]
fn drop_stops_the_server_and_closes_the_port() -> io::Result<()> {
    let server = server("30s")?;
    let addr = server.addr();
    let mut client = in_service(&server)?;
    let start = Instant::now();
    drop(server);
    assert!(start.elapsed() < PROMPT, "{:?}", start.elapsed());
    expect_closed(&mut client);
    expect_port_closed(addr);
    Ok(())
}

/// A client whose request the server has begun to serve.
fn in_service(server: &SlowServer) -> io::Result<Client> {
    let mut client = Client::connect(server.addr())?;
    client.send("GET 1 a")?;
    wait_for("the request to be in service", || {
        server.stats().requests.get == 1
    });
    Ok(client)
}

/// Nothing listens on `addr` any more: a connect is refused.
#[track_caller]
fn expect_port_closed(addr: SocketAddr) {
    let refused = TcpStream::connect(addr).map(drop);
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(io::ErrorKind::ConnectionRefused)
    );
}
