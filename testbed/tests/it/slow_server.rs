//! The `slow-server` binary, run the way a person runs it: flags, the
//! listening line, a signal, the final statistics.

use std::io::{self, BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use testbed::testing::KillOnDrop;

use crate::util::{Client, IO_TIMEOUT, expect_line, success};

fn slow_server() -> Command {
    Command::new(env!("CARGO_BIN_EXE_slow-server"))
}

#[test]
fn a_bad_flag_gets_one_line_naming_the_accepted_forms_and_status_2() -> io::Result<()> {
    let cases = [
        (["--latency", "fast"], "uniform:1ms..20ms"),
        (["--faults", "boom=1"], "nak, ko, hang"),
        (["--seed", "x"], "--seed"),
        (["--listen", "nowhere"], "--listen"),
        (["--bogus", "1"], "--bogus"),
    ];
    for (args, words) in cases {
        let output = slow_server().args(args).output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    Ok(())
}

#[test]
fn serves_until_a_signal_then_prints_its_statistics() -> io::Result<()> {
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        // Whatever happens, the guard leaves no process behind.
        let mut server = KillOnDrop::spawn(
            slow_server()
                .args(["--listen", "127.0.0.1:0", "--latency", "1ms", "--seed", "9"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )?;
        talk_then_stop(&mut server, signal)?;
    }
    Ok(())
}

fn talk_then_stop(server: &mut Child, signal: Signal) -> io::Result<()> {
    let line = first_line(server)?;
    let addr: SocketAddr = line
        .strip_prefix("slow-server listening on ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|addr| addr.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    assert!(
        line.ends_with("(latency 1.0ms, faults none, seed 9, idle timeout 60.00s)"),
        "{line}"
    );

    let mut client = Client::connect(addr)?;
    client.send("GET 5 hi")?;
    expect_line(&mut client, &success(5, "hi"));

    let pid = Pid::from_raw(i32::try_from(server.id()).expect("pids fit in an i32"));
    kill(pid, signal)?;
    let status = wait_with_deadline(server)?;
    assert!(status.success(), "{signal}: {status}");
    let mut stderr = String::new();
    if let Some(mut pipe) = server.stderr.take() {
        pipe.read_to_string(&mut stderr)?;
    }
    assert!(stderr.contains(&format!("stopped by {signal}")), "{stderr}");
    assert!(stderr.contains("1 accepted"), "{stderr}");
    assert!(stderr.contains("get 1"), "{stderr}");
    Ok(())
}

/// The server's first line on stdout, read on a helper thread so that a
/// server that never prints fails the test instead of hanging it.
fn first_line(server: &mut Child) -> io::Result<String> {
    let stdout = server.stdout.take().expect("stdout is piped");
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        let _ = tx.send(read);
    });
    let line = rx
        .recv_timeout(IO_TIMEOUT)
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no listening line"))??;
    Ok(line.trim_end().to_owned())
}

fn wait_with_deadline(server: &mut Child) -> io::Result<std::process::ExitStatus> {
    let deadline = Instant::now() + IO_TIMEOUT;
    loop {
        if let Some(status) = server.try_wait()? {
            return Ok(status);
        }
        if Instant::now() > deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no exit after the signal",
            ));
        }
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_port_in_use_is_named_with_the_way_out_and_status_2() -> io::Result<()> {
    // Once "slow-server: Address already in use (os error 98)", exit 1.
    let taken = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = taken.local_addr()?.to_string();
    let line = testbed::testing::usage_error(
        env!("CARGO_BIN_EXE_slow-server"),
        &["--listen", &addr],
        IO_TIMEOUT,
    );
    assert!(line.contains(&format!("--listen {addr}")), "{line}");
    assert!(line.contains("port 0"), "{line}");
    Ok(())
}
