//! The slow server through its public API, over loopback: answers, the
//! request sequence, faults, the connection limit, parallelism and
//! statistics. Its shutdown is `shutdown.rs`.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::time::{Duration, Instant};

use testbed::faults::Fault;
use testbed::framing::{FrameError, LineError};
use testbed::protocol::{ItemId, Phase};
use testbed::server::{Garbage, SlowServer, TRICKLE_PAUSE, TRICKLE_PIECES};

use crate::util::{
    Client, config, expect_bad_request, expect_closed, expect_line, server, success, wait_for,
};

#[test]
fn get_answers_the_protocol_test_vectors() -> io::Result<()> {
    let server = server("1ms")?;
    let mut client = Client::connect(server.addr())?;
    for (line, reply) in [
        ("GET 0 a", "200 4e5d25181d44678a"),
        ("GET 42 hello", "200 853456910a36ffc9"),
        ("GET 18446744073709551615 x-y_z.0", "200 238352e6edb01e9b"),
    ] {
        client.send(line)?;
        expect_line(&mut client, reply);
    }
    Ok(())
}

#[test]
fn head_then_body_answers_ok_then_the_hash_of_the_body() -> io::Result<()> {
    let server = server("1ms")?;
    let mut client = Client::connect(server.addr())?;
    for id in [3, 4] {
        client.send(&format!("HEAD {id}"))?;
        expect_line(&mut client, "OK");
        client.send(&format!("BODY {id} payload-{id}"))?;
        expect_line(&mut client, &success(id, &format!("payload-{id}")));
    }
    Ok(())
}

#[test]
fn pipelined_requests_are_answered_in_order() -> io::Result<()> {
    // Uneven latencies: a server that served pipelined lines in parallel
    // would answer the short ones first.
    let server = SlowServer::spawn(config("uniform:0ms..5ms", "none", 5))?;
    let mut client = Client::connect(server.addr())?;
    let mut batch = String::new();
    let mut expected = Vec::new();
    for id in 0..20 {
        batch += &format!("GET {id} p{id}\n");
        expected.push(success(id, &format!("p{id}")));
    }
    // A BODY pipelined behind its HEAD is valid: the server takes it only
    // after it has answered OK.
    batch += "HEAD 99\nBODY 99 last\n";
    expected.extend(["OK".to_owned(), success(99, "last")]);
    client.send_raw(batch.as_bytes())?;
    for line in &expected {
        expect_line(&mut client, line);
    }
    Ok(())
}

#[test]
fn quit_closes_the_connection() -> io::Result<()> {
    let server = server("0")?;
    let mut client = Client::connect(server.addr())?;
    client.send("GET 1 a")?;
    client.send("QUIT")?;
    expect_line(&mut client, &success(1, "a"));
    expect_closed(&mut client);
    Ok(())
}

#[test]
fn an_over_long_line_gets_400_and_a_close_while_others_are_served() -> io::Result<()> {
    let server = server("20ms")?;
    let mut good = Client::connect(server.addr())?;
    // In its service time while the other client misbehaves.
    good.send("HEAD 5")?;
    let mut bad = Client::connect(server.addr())?;
    let mut line = vec![b'x'; 1_999];
    line.push(b'\n');
    bad.send_raw(&line)?;
    expect_bad_request(&mut bad, "longer than 1024 bytes");
    expect_line(&mut good, "OK");
    good.send("BODY 5 still-served")?;
    expect_line(&mut good, &success(5, "still-served"));
    Ok(())
}

/// One case of a line the server must refuse: lines sent before it with the
/// replies they get, the offending bytes, and words the `400` must contain.
struct BadCase {
    before: Vec<(String, String)>,
    line: &'static [u8],
    reason: &'static str,
}

fn bad(line: &'static [u8], reason: &'static str) -> BadCase {
    BadCase {
        before: Vec::new(),
        line,
        reason,
    }
}

fn after_head(line: &'static [u8], reason: &'static str) -> BadCase {
    BadCase {
        before: vec![("HEAD 1".into(), "OK".into())],
        ..bad(line, reason)
    }
}

#[test]
fn malformed_and_out_of_sequence_lines_get_400_and_a_close() -> io::Result<()> {
    let server = server("0")?;
    let cases = [
        bad(b"GET 1 a\x01b\n", "non-printable byte 0x01"),
        bad(b"GET 1 \xff\n", "non-printable byte 0xff"),
        bad(b"GET 1 a\rb\n", "non-printable byte 0x0d"),
        bad(b"PUT 1 a\n", "unknown verb 'PUT'"),
        bad(b"\n", "missing verb"),
        bad(b"GET  1 a\n", "exactly one space"),
        bad(b"GET x1 a\n", "bad id 'x1'"),
        bad(b"GET +1 a\n", "bad id '+1'"),
        bad(b"GET 1 a/b\n", "bad payload 'a/b'"),
        bad(b"HEAD 1 extra\n", "unexpected field 'extra'"),
        bad(b"BODY 1 a\n", "BODY 1 without an OK to HEAD 1"),
        after_head(b"BODY 2 a\n", "expected BODY 1 after OK to HEAD 1"),
        after_head(b"GET 1 a\n", "expected BODY 1"),
        after_head(b"HEAD 1\n", "expected BODY 1"),
        BadCase {
            before: vec![
                ("HEAD 1".into(), "OK".into()),
                ("BODY 1 a".into(), success(1, "a")),
            ],
            ..bad(b"BODY 1 a\n", "BODY 1 without an OK to HEAD 1")
        },
    ];
    for case in &cases {
        let mut client = Client::connect(server.addr())?;
        for (line, reply) in &case.before {
            client.send(line)?;
            expect_line(&mut client, reply);
        }
        client.send_raw(case.line)?;
        expect_bad_request(&mut client, case.reason);
    }
    assert_eq!(server.stats().bad_requests, cases.len() as u64);
    Ok(())
}

#[test]
fn a_client_closing_mid_line_does_not_disturb_the_server() -> io::Result<()> {
    let server = server("0")?;
    let mut other = Client::connect(server.addr())?;
    let mut leaving = Client::connect(server.addr())?;
    leaving.send_raw(b"GET 1 ha")?;
    drop(leaving);
    other.send("GET 2 b")?;
    expect_line(&mut other, &success(2, "b"));
    wait_for("the cut connection to be closed", || {
        server.stats().active == 1
    });
    let stats = server.stats();
    assert_eq!((stats.accepted, stats.bad_requests), (2, 0));
    Ok(())
}

#[test]
fn client_garbage_never_takes_the_server_down() -> io::Result<()> {
    let server = server("0")?;
    // A deterministic byte soup (an LCG), plus the classic offenders.
    let mut state: u32 = 12_345;
    let soup: Vec<u8> = (0..3_000)
        .map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 16) as u8
        })
        .collect();
    let inputs: Vec<&[u8]> = vec![
        &soup,
        &[0; 5_000],
        b"\r\r\n",
        b"GET 18446744073709551616 a\n",
        b"HEAD 1\nHEAD 1\n",
        b"QUIT now\n",
        b"GET 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ];
    for input in inputs {
        let mut client = Client::connect(server.addr())?;
        // The server may close before everything is written: that is fine.
        let _ = client.send_raw(input);
    }
    let mut client = Client::connect(server.addr())?;
    client.send("GET 7 fine")?;
    expect_line(&mut client, &success(7, "fine"));
    drop(client);
    wait_for("every connection to close", || server.stats().active == 0);
    assert_eq!(server.shutdown().panics, 0);
    Ok(())
}

/// What a client sees for one request line, given the fault the plan
/// decided for it. Returns the client if the line must hang, to check later.
#[track_caller]
fn observe(
    mut client: Client,
    fault: Option<Fault>,
    garbage: Garbage,
    correct: &str,
) -> io::Result<Option<Client>> {
    match fault {
        None | Some(Fault::Trickle) => expect_line(&mut client, correct),
        Some(Fault::Nak) => expect_line(&mut client, "NAK injected nak"),
        Some(Fault::Ko) => expect_line(&mut client, "500 injected ko"),
        Some(Fault::Drop) => expect_closed(&mut client),
        Some(Fault::Garbage) => {
            match (client.read_line(), garbage) {
                (Err(LineError::Frame(FrameError::TooLong)), Garbage::TooLong) => {}
                (Err(LineError::Frame(FrameError::NotPrintable(_))), Garbage::NotPrintable) => {}
                (other, _) => panic!("expected {garbage:?} garbage, got {other:?}"),
            }
            // Then the server closes: read the rest to end-of-file.
            let mut rest = Vec::new();
            client.stream().read_to_end(&mut rest)?;
        }
        // A reset is an error from `read`, not the end of the stream.
        Some(Fault::Reset) => match client.read_line() {
            Err(LineError::Io(e)) if e.kind() == io::ErrorKind::ConnectionReset => {}
            other => panic!("expected a reset, got {other:?}"),
        },
        Some(Fault::Hang | Fault::Blackhole) => return Ok(Some(client)),
    }
    Ok(None)
}

#[test]
fn faults_land_exactly_where_the_plan_says() -> io::Result<()> {
    const SEED: u64 = 7;
    const ITEMS: u64 = 300;
    let config = config(
        "0",
        "nak=0.15,ko=0.15,hang=0.05,drop=0.1,garbage=0.1,trickle=0.15,reset=0.05,blackhole=0.05",
        SEED,
    );
    let server = SlowServer::spawn(config)?;
    let decide = |id, phase| config.faults.decide(SEED, ItemId(id), phase);
    let flavour = |id, phase| Garbage::choose(SEED, ItemId(id), phase);
    let mut expected: BTreeMap<&str, u64> = BTreeMap::new();
    let mut count = |fault: Option<Fault>| {
        if let Some(fault) = fault {
            *expected.entry(fault.as_str()).or_default() += 1;
        }
    };
    let mut hanging = Vec::new();
    let mut lines = 0;
    for id in 0..ITEMS {
        // Single phase, on a connection of its own.
        let mut client = Client::connect(server.addr())?;
        client.send(&format!("GET {id} g{id}"))?;
        let fault = decide(id, Phase::Get);
        count(fault);
        lines += 1;
        let correct = success(id, &format!("g{id}"));
        hanging.extend(observe(client, fault, flavour(id, Phase::Get), &correct)?);

        // Two phases; the BODY only if the HEAD was answered OK.
        let mut client = Client::connect(server.addr())?;
        client.send(&format!("HEAD {id}"))?;
        let fault = decide(id, Phase::Head);
        count(fault);
        lines += 1;
        if matches!(fault, None | Some(Fault::Trickle)) {
            expect_line(&mut client, "OK");
            client.send(&format!("BODY {id} b{id}"))?;
            let fault = decide(id, Phase::Body);
            count(fault);
            lines += 1;
            let correct = success(id, &format!("b{id}"));
            hanging.extend(observe(client, fault, flavour(id, Phase::Body), &correct)?);
        } else {
            hanging.extend(observe(client, fault, flavour(id, Phase::Head), "OK")?);
        }
    }

    // Every line has been taken into service, and the latency is zero: a
    // reply to a hanging line would be on its way by now.
    wait_for("every line to be served", || {
        server.stats().service.count == lines
    });
    assert!(!hanging.is_empty(), "the plan should make some lines hang");
    for client in &hanging {
        client.stream().set_nonblocking(true)?;
        let mut byte = [0u8; 1];
        match client.stream().read(&mut byte) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            other => panic!("a hanging connection must stay open and silent, got {other:?}"),
        }
    }

    let stats = server.stats();
    for fault in Fault::ALL {
        let want = expected.get(fault.as_str()).copied().unwrap_or(0);
        assert_eq!(stats.faults_of(fault), want, "{fault} faults");
        assert!(want > 0, "the plan should produce some {fault} faults");
    }
    assert_eq!(stats.requests.total(), lines);
    assert_eq!(server.shutdown().panics, 0);
    Ok(())
}

#[test]
fn a_trickled_reply_takes_its_pauses() -> io::Result<()> {
    let server = SlowServer::spawn(config("0", "trickle=1", 1))?;
    let mut client = Client::connect(server.addr())?;
    let start = Instant::now();
    client.send("GET 1 slowly")?;
    expect_line(&mut client, &success(1, "slowly"));
    // `sleep` never wakes early, so the pauses are a lower bound whatever
    // the scheduler does.
    let pauses = TRICKLE_PAUSE * (TRICKLE_PIECES as u32 - 1);
    assert!(start.elapsed() >= pauses, "{:?}", start.elapsed());
    Ok(())
}

#[test]
fn max_conns_refuses_with_503_busy_and_closes() -> io::Result<()> {
    let mut config = config("0", "none", 1);
    config.max_conns = Some(2);
    let server = SlowServer::spawn(config)?;
    let mut admitted = Vec::new();
    for id in 0..2 {
        let mut client = Client::connect(server.addr())?;
        // A reply proves the connection was admitted.
        client.send(&format!("GET {id} a"))?;
        expect_line(&mut client, &success(id, "a"));
        admitted.push(client);
    }
    let mut refused = Client::connect(server.addr())?;
    expect_line(&mut refused, "503 busy");
    expect_closed(&mut refused);
    // A client that sends its request at once still reads the 503.
    let mut eager = Client::connect(server.addr())?;
    eager.send("GET 9 a")?;
    expect_line(&mut eager, "503 busy");
    expect_closed(&mut eager);

    drop(admitted.pop());
    wait_for("a slot to free up", || server.stats().active == 1);
    let mut client = Client::connect(server.addr())?;
    client.send("GET 3 a")?;
    expect_line(&mut client, &success(3, "a"));
    let stats = server.stats();
    assert_eq!((stats.accepted, stats.refused, stats.peak_conns), (3, 2, 2));
    Ok(())
}

#[test]
fn a_thousand_connections_are_served_in_parallel() -> io::Result<()> {
    const CONNS: u64 = 1_000;
    let server = server("50ms")?;
    let start = Instant::now();
    let mut clients = (0..CONNS)
        .map(|_| Client::connect(server.addr()))
        .collect::<io::Result<Vec<_>>>()?;
    for (id, client) in (0..).zip(&mut clients) {
        client.send(&format!("GET {id} crowd"))?;
    }
    for (id, client) in (0..).zip(&mut clients) {
        expect_line(client, &success(id, "crowd"));
    }
    let elapsed = start.elapsed();
    // One after the other, 1,000 requests of 50 ms would take 50 s; in
    // parallel they take about 0.1 s, and about 1 s on a loaded 2-core
    // machine. A tenth of 50 s proves at least ten at once with room to spare.
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    let stats = server.stats();
    assert_eq!((stats.peak_conns, stats.requests.get), (CONNS, CONNS));
    Ok(())
}

#[test]
fn stats_count_connections_requests_and_faults() -> io::Result<()> {
    const SEED: u64 = 3;
    let config = config("1ms", "nak=0.5", SEED);
    let server = SlowServer::spawn(config)?;
    let mut clients = (0..3)
        .map(|_| Client::connect(server.addr()))
        .collect::<io::Result<Vec<_>>>()?;
    let (mut gets, mut heads, mut bodies, mut naks) = (0, 0, 0, 0);
    for id in 0..30u64 {
        let client = &mut clients[(id % 3) as usize];
        if id % 2 == 0 {
            client.send(&format!("GET {id} s"))?;
            expect_line(client, &success(id, "s"));
            gets += 1;
            continue;
        }
        client.send(&format!("HEAD {id}"))?;
        heads += 1;
        if config
            .faults
            .decide(SEED, ItemId(id), Phase::Head)
            .is_some()
        {
            expect_line(client, "NAK injected nak");
            naks += 1;
        } else {
            expect_line(client, "OK");
            client.send(&format!("BODY {id} s"))?;
            expect_line(client, &success(id, "s"));
            bodies += 1;
        }
    }
    assert!(naks > 0 && bodies > 0, "seed {SEED} should give both");
    drop(clients);
    wait_for("the clients' connections to close", || {
        server.stats().active == 0
    });
    let stats = server.shutdown();
    assert_eq!(
        (
            stats.accepted,
            stats.refused,
            stats.active,
            stats.peak_conns
        ),
        (3, 0, 0, 3)
    );
    assert_eq!(
        (stats.requests.get, stats.requests.head, stats.requests.body),
        (gets, heads, bodies)
    );
    assert_eq!(stats.faults_of(Fault::Nak), naks);
    assert_eq!(stats.faults.values().sum::<u64>(), naks);
    assert_eq!((stats.bad_requests, stats.panics), (0, 0));
    assert_eq!(stats.service.count, gets + heads + bodies);
    let mean = stats.mean_service_time().expect("requests were served");
    assert!(mean >= Duration::from_millis(1), "{mean:?}");
    Ok(())
}
