//! The view's frames, drawn on ratatui's `TestBackend` and read back line
//! by line: each test names the numbers a frame must show.

use std::io::Write as _;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::state::tests::setup;
use super::*;
use crate::latency::LatencyModel;
use crate::protocol::{ItemId, Phase};
use crate::server::{ServerConfig, SlowServer};
use crate::stage::{RunStats, Scenario, StageError};

/// The frame's text, one string per row.
fn frame(app: &App, width: u16, height: u16) -> Vec<String> {
    let mut tty = Terminal::new(TestBackend::new(width, height)).expect("a test terminal");
    tty.draw(|frame| draw(frame, app)).expect("drawn");
    let buffer = tty.backend().buffer();
    (0..height)
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

fn shows(lines: &[String], words: &str) -> bool {
    lines.iter().any(|line| line.contains(words))
}

fn assert_shows(lines: &[String], words: &[&str]) {
    for w in words {
        assert!(
            shows(lines, w),
            "{w:?} is not on the screen:\n{}",
            lines.join("\n")
        );
    }
}

fn conn(port: u16, item: u64, phase: Phase, in_service: bool) -> ConnNow {
    ConnNow {
        port,
        item: ItemId(item),
        phase,
        since: Duration::from_micros(2_500),
        in_service,
        fault: None,
    }
}

/// A run recorded as the view saw it: two connections, one second apart,
/// 100 items a second, 4 of the 240 failed.
fn recorded_run() -> App {
    let mut app = App::new(setup());
    for (ms, recorded) in [(0, 0), (1000, 100), (2000, 200), (2400, 240)] {
        app.observe(Sample {
            at: Duration::from_millis(ms),
            recorded,
            failed: recorded / 60,
            started: recorded + 2,
            service: Some(Duration::from_millis(10)),
            connections: vec![
                conn(40001, recorded, Phase::Head, true),
                conn(40002, recorded + 1, Phase::Body, false),
            ],
            wakes: None,
        });
    }
    app
}

#[test]
fn a_frame_shows_the_counts_the_connections_and_the_ideal() {
    let lines = frame(&recorded_run(), 120, 24);
    assert_shows(
        &lines,
        &[
            "pool: 1000 items",
            "2.4s",
            "ok 236",
            "failed 4",
            "in flight 2",
            "left 760",
            // The window keeps the newest sample at least a second old:
            // 140 items from 1.0 s to 2.4 s.
            "now 100",
            "mean 100",
            "ideal 100 = 2 conns / (2 x 10.0ms)   efficiency 100%",
            "connections: 2 open",
            "#0    item 240     HEAD in service 2.5ms",
            "#1    item 241     BODY replied 2.5ms ago",
            "no loop recording",
        ],
    );
    assert!(!shows(&lines, "stalled"), "no stall was reported");
}

#[test]
fn the_sparkline_draws_the_history_of_throughput() {
    let lines = frame(&recorded_run(), 120, 24);
    // Four readings (0, 100, 100, 100) against a scale topped at the
    // ideal, 100: three bars reach the top row of the panel, so each of
    // them draws at least one full block.
    let bars: usize = lines
        .iter()
        .map(|line| line.chars().filter(|c| *c == '█').count())
        .sum();
    assert!(bars >= 3, "three full readings:\n{}", lines.join("\n"));
}

#[test]
fn a_stall_is_shown_until_the_run_records_again() {
    let mut app = recorded_run();
    let said = "pool: nothing recorded for 10.00s (240 of 1000 items so far)";
    app.stall(said);
    let lines = frame(&app, 120, 24);
    assert_shows(&lines, &["stalled", said]);
    let mut next = app.last().clone();
    next.at += Duration::from_secs(1);
    next.recorded += 1;
    app.observe(next);
    assert!(!shows(&frame(&app, 120, 24), "stalled"));
}

#[test]
fn the_loops_wake_ups_are_listed_newest_first() {
    let mut app = recorded_run();
    let mut sample = app.last().clone();
    sample.wakes = Some(vec![
        Wake {
            at: Duration::from_millis(2390),
            slept: Duration::from_micros(4_100),
            ready: 3,
            timers: 0,
            then: "recorded 2".into(),
        },
        Wake {
            at: Duration::from_millis(2395),
            slept: Duration::from_micros(900),
            ready: 1,
            timers: 1,
            then: "timed out 1".into(),
        },
    ]);
    app.observe(sample);
    let lines = frame(&app, 120, 24);
    let row = |words: &str| lines.iter().position(|line| line.contains(words));
    let (newest, oldest) = (
        row("slept 900us  ready 1  timers 1"),
        row("slept 4.1ms  ready 3"),
    );
    assert!(newest.is_some() && oldest.is_some(), "{}", lines.join("\n"));
    assert!(newest < oldest, "newest first:\n{}", lines.join("\n"));
    assert!(!shows(&lines, "no loop recording"));
}

/// Sends `line` to a server run with `config`, and returns the first
/// sample of its board that `ready` accepts (within ten seconds), with the
/// server and the client's connection, both still open.
fn board_after(
    config: ServerConfig,
    line: &[u8],
    ready: impl Fn(&Sample) -> bool,
) -> (Sample, SlowServer, TcpStream) {
    let server = SlowServer::spawn(config).expect("a server");
    let feeds = Feeds::new(&Progress::hidden(), Some(server.board()));
    let mut client = TcpStream::connect(server.addr()).expect("connected");
    client.write_all(line).expect("sent");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let sample = feeds.sample(Duration::from_millis(100));
        if ready(&sample) {
            return (sample, server, client);
        }
        assert!(
            Instant::now() < deadline,
            "the board never showed it: {sample:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A real server's board: the line a client sent is on screen, in service.
#[test]
fn a_live_servers_connections_show_their_item_and_phase() {
    // A minute of service: the line stays "in service" for the whole test,
    // and the server abandons it when it stops.
    let config = ServerConfig {
        latency: LatencyModel::Fixed(Duration::from_secs(60)),
        ..ServerConfig::default()
    };
    let (sample, server, client) =
        board_after(config, b"HEAD 7\n", |sample| !sample.connections.is_empty());
    assert_eq!(sample.started, 1);
    let mut app = App::new(setup());
    app.observe(sample);
    let lines = frame(&app, 120, 24);
    assert_shows(
        &lines,
        &[
            "connections: 1 open",
            "#0    item 7       HEAD in service",
            "in flight 1",
        ],
    );
    drop(client);
    drop(server.shutdown());
}

/// A hung request is told apart from a slow one: the server's service
/// time is over, and it sent nothing.
#[test]
fn a_hang_is_shown_as_the_fault_not_as_a_reply() {
    let config = ServerConfig {
        latency: LatencyModel::Fixed(Duration::ZERO),
        faults: "hang=1".parse().expect("a fault plan"),
        ..ServerConfig::default()
    };
    let (sample, server, client) = board_after(config, b"HEAD 3\n", |sample| {
        sample.connections.iter().any(|conn| !conn.in_service)
    });
    let mut app = App::new(setup());
    app.observe(sample);
    assert_shows(&frame(&app, 120, 24), &["#0    item 3       HEAD hang "]);
    drop(client);
    drop(server.shutdown());
}

#[test]
fn against_an_external_server_the_view_says_what_it_cannot_see() {
    let mut app = App::new(Setup {
        server_elsewhere: true,
        ..setup()
    });
    app.observe(Sample {
        at: Duration::from_secs(1),
        recorded: 10,
        ..Sample::default()
    });
    let lines = frame(&app, 120, 24);
    assert_shows(
        &lines,
        &[
            "ok 10",
            "in flight ?",
            "the server runs in another process (--server)",
        ],
    );
}

struct Stub {
    forks: bool,
}

impl Stage for Stub {
    fn name(&self) -> &'static str {
        "stub"
    }
    fn forks(&self) -> bool {
        self.forks
    }
    fn run(&self, _: &Scenario) -> Result<RunStats, StageError> {
        Ok(RunStats::new(1))
    }
}

#[test]
fn without_a_terminal_or_in_a_forking_stage_the_view_says_why_not() {
    let none = refusal(&Stub { forks: false }, false).expect("refused");
    assert_eq!(
        none,
        "standard output is not a terminal; the run goes on with the usual progress line"
    );
    let fork = refusal(&Stub { forks: true }, true).expect("refused");
    assert!(
        fork.ends_with("cannot watch; the run goes on without it"),
        "{fork}"
    );
    assert_eq!(refusal(&Stub { forks: false }, true), None);
    // Not asked for: not shown, whatever the terminal.
    assert!(!wanted(&Stub { forks: false }, &Settings::default()));
}
