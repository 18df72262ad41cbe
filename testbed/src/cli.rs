//! The command line every stage binary shares (documented for readers in
//! `docs/flags.md`).
//!
//! [`Settings`] is both the clap argument group (`#[command(flatten)]` it
//! into a stage's own arguments) and the plain value that tests and the
//! bench build directly with `Settings { items: 50, ..Settings::default() }`.
//! Every spec parser's error names the flag and the forms it accepts, and
//! [`parse_or_exit`] prints it on one line and exits with status 2.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser};

use crate::duration::{DURATION_FORMS, parse_duration};
use crate::faults::FaultPlan;
use crate::latency::LatencyModel;
use crate::protocol::Phases;

/// Exit status for a bad flag (the convention of clap and of BSD's
/// `sysexits.h` `EX_USAGE` family: 2 means "you called me wrong").
pub const EXIT_USAGE: u8 = 2;

/// The flags every stage accepts.
#[derive(Debug, Clone, Args)]
pub struct Settings {
    /// Items to process.
    #[arg(long, default_value_t = 200)]
    pub items: usize,

    /// Concurrency: tasks, wrappers, pool size or fiber limit (01-sync uses one).
    #[arg(long, default_value_t = 20, value_parser = parse_conns)]
    pub conns: usize,

    /// 1: single-phase GET; 2: two-phase HEAD, then BODY.
    #[arg(long, default_value = "2", value_parser = parse_phases)]
    pub phases: Phases,

    /// Simulated service time: 10ms, uniform:1ms..20ms, exp:10ms, bimodal:0.1:100ms:5ms.
    #[arg(long, default_value = "10ms", value_name = "SPEC")]
    pub latency: LatencyModel,

    /// Injected faults, e.g. nak=0.05,ko=0.05,hang=0.01,drop=0.01,garbage=0.01,trickle=0.1.
    #[arg(long, default_value = "none", value_name = "SPEC")]
    pub faults: FaultPlan,

    /// Seed for the item list, latencies and faults.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Talk to a slow-server already running there instead of an embedded one.
    #[arg(long, value_name = "ADDR")]
    pub server: Option<SocketAddr>,

    /// Keep the results in this SQLite file (replaced if it exists).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Fail a request with `timeout` when no reply comes within this time.
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout)]
    pub read_timeout: Option<Duration>,

    /// Fail a connect with `timeout` when the handshake has not finished
    /// within this time (a server that drops SYNs would otherwise stall a
    /// connect for about two minutes, the kernel's own limit).
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = parse_timeout)]
    pub connect_timeout: Duration,

    /// Print the report as one JSON object on stdout, nothing else.
    #[arg(long)]
    pub json: bool,

    /// Write an SVG timeline of the run: one lane per connection (a path
    /// ending in .json gets the timeline's data, for stack-timelines).
    #[arg(long, value_name = "PATH")]
    pub timeline: Option<PathBuf>,

    /// The command printed under the timeline instead of this process's
    /// own command line: the book's figures show the `cargo run` a reader
    /// would type, not the path of a binary in `target/`.
    #[arg(long, value_name = "TEXT", hide = true)]
    pub caption: Option<String>,
}

impl Default for Settings {
    /// The same defaults as the command line, for tests and the bench.
    fn default() -> Self {
        #[derive(Parser)]
        struct Defaults {
            #[command(flatten)]
            settings: Settings,
        }
        Defaults::try_parse_from(["defaults"])
            .expect("every flag has a valid default")
            .settings
    }
}

/// Writes `text` to stdout and flushes it, returning the error that
/// `print!` would panic with. A binary whose output is piped into
/// `head` meets `BrokenPipe` here, and should end quietly with the
/// status it would have had.
pub fn print(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Parses the process's arguments; on a bad flag prints one line naming it
/// and the accepted forms, and exits with status 2. `--help` and
/// `--version` print in full and exit 0, as usual.
pub fn parse_or_exit<A: Parser>() -> A {
    match A::try_parse() {
        Ok(args) => args,
        Err(error) if !error.use_stderr() => error.exit(),
        Err(error) => {
            let rendered = error.render().to_string();
            let first = rendered.lines().next().unwrap_or("error: bad arguments");
            eprintln!("{first} (see --help)");
            std::process::exit(EXIT_USAGE.into())
        }
    }
}

/// Prints a usage error in the same one-line form and returns exit status 2.
pub fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

fn parse_phases(s: &str) -> Result<Phases, String> {
    match s {
        "1" => Ok(Phases::One),
        "2" => Ok(Phases::Two),
        _ => Err("expected 1 (GET) or 2 (HEAD, then BODY)".into()),
    }
}

fn parse_conns(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number of at least 1".into()),
    }
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    match parse_duration(s) {
        Some(d) if !d.is_zero() => Ok(d),
        _ => Err(format!("expected a positive duration, {DURATION_FORMS}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        settings: Settings,
    }

    fn error_for(args: &[&str]) -> String {
        let argv = std::iter::once("stage").chain(args.iter().copied());
        Cli::try_parse_from(argv)
            .expect_err("these arguments are bad")
            .to_string()
    }

    #[test]
    fn defaults_match_the_design() {
        let s = Settings::default();
        assert_eq!(
            (s.items, s.conns, s.phases, s.seed),
            (200, 20, Phases::Two, 1)
        );
        assert_eq!(s.latency, LatencyModel::Fixed(Duration::from_millis(10)));
        assert!(s.faults.is_none() && s.server.is_none() && !s.json);
    }

    #[test]
    fn bad_values_name_the_flag_and_the_forms() {
        let cases: [(&[&str], &str, &str); 6] = [
            (&["--latency", "fast"], "--latency", "uniform:1ms..20ms"),
            (&["--faults", "nak=2"], "--faults", "nak, ko, hang"),
            (&["--phases", "3"], "--phases", "1 (GET)"),
            (&["--conns", "0"], "--conns", "at least 1"),
            (&["--read-timeout", "soon"], "--read-timeout", "10ms"),
            (&["--server", "nowhere"], "--server", "nowhere"),
        ];
        for (args, flag, form) in cases {
            let message = error_for(args);
            let first = message.lines().next().unwrap_or_default();
            assert!(
                first.contains(flag) && first.contains(form),
                "{args:?}: {first}"
            );
        }
    }
}
