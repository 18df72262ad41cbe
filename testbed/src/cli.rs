//! The command line every stage binary shares (documented for readers in
//! `docs/flags.md`).
//!
//! [`Settings`] is both the clap argument group (`#[command(flatten)]` it
//! into a stage's own arguments) and the plain value that tests and the
//! bench build directly with `Settings { items: 50, ..Settings::default() }`.
//! Every spec parser's error names the flag and the forms it accepts, and
//! [`parse_or_exit`] prints it on one line and exits with status 2.
//!
//! Every flag that takes a number, a duration or a spec also takes a value
//! that starts with `-` (`allow_hyphen_values`): otherwise clap reads
//! `--items -1` as a flag `-1` it does not know, and the error names
//! neither `--items` nor what it accepts. Path and address flags do not,
//! so that `--db --json` is still an error about a missing value.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser};

mod output;

pub use output::{STACK_ENDINGS, TIMELINE_ENDINGS, check_output};

use crate::duration::{DURATION_FORMS, parse_duration};
use crate::faults::FaultPlan;
use crate::latency::LatencyModel;
use crate::outage::Outage;
use crate::protocol::Phases;

/// Exit status for a bad flag (the convention of clap and of BSD's
/// `sysexits.h` `EX_USAGE` family: 2 means "you called me wrong").
pub const EXIT_USAGE: u8 = 2;

/// The most items a run takes. The harness holds the whole work list in
/// memory, and the report its rows: about 100 bytes an item, so ten
/// million is a gigabyte, and at the ~48,000 requests per second that the
/// slow server serves on this 2-core machine, three and a half minutes of
/// zero-latency single-phase work. A bigger run would need the list
/// streamed, which no lesson here is about.
pub const MAX_ITEMS: usize = 10_000_000;

/// The flags every stage accepts.
#[derive(Debug, Clone, Args)]
pub struct Settings {
    /// Items to process (at most 10,000,000).
    #[arg(long, default_value_t = 200, value_parser = parse_items, allow_hyphen_values = true)]
    pub items: usize,

    /// Concurrency: tasks, wrappers, pool size or fiber limit (01-sync uses one).
    #[arg(long, default_value_t = 20, value_parser = parse_conns, allow_hyphen_values = true)]
    pub conns: usize,

    /// 1: single-phase GET; 2: two-phase HEAD, then BODY.
    #[arg(long, default_value = "2", value_parser = parse_phases, allow_hyphen_values = true)]
    pub phases: Phases,

    /// Simulated service time: 10ms, uniform:1ms..20ms, exp:10ms,
    /// bimodal:0.1:100ms:5ms, pareto:2ms:1.5. With --server the server
    /// decides its latency, and this is only the nominal latency the ideal
    /// of the report is computed with: give the server's.
    #[arg(
        long,
        default_value = "10ms",
        value_name = "SPEC",
        allow_hyphen_values = true
    )]
    pub latency: LatencyModel,

    /// Injected faults per request line, e.g.
    /// nak=0.05,ko=0.05,hang=0.01,drop=0.01,garbage=0.01,trickle=0.1,reset=0.01,blackhole=0.01.
    /// Not with --server: that server decides its own faults.
    #[arg(
        long,
        default_value = "none",
        value_name = "SPEC",
        allow_hyphen_values = true
    )]
    pub faults: FaultPlan,

    /// Take the embedded server down for a while: START+LENGTH from its
    /// start (e.g. 200ms+300ms); it refuses connections and resets the
    /// open ones, then serves again. Not with --server.
    #[arg(long, value_name = "START+LENGTH", allow_hyphen_values = true)]
    pub outage: Option<Outage>,

    /// Seed for the item list, latencies and faults.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    pub seed: u64,

    /// Talk to a slow-server already running there instead of an embedded one.
    #[arg(long, value_name = "ADDR")]
    pub server: Option<SocketAddr>,

    /// Keep the results in this SQLite file. A second run on the same file
    /// is refused while this one lasts; an earlier run's results there are
    /// replaced, and the report says so.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Fail a request with `timeout` when no reply comes within this time
    /// (against --server, stages that can time out use 30s when not given).
    #[arg(long, value_name = "DURATION", value_parser = parse_positive_duration, allow_hyphen_values = true)]
    pub read_timeout: Option<Duration>,

    /// Fail a connect with `timeout` when the handshake has not finished
    /// within this time (a server that drops SYNs would otherwise stall a
    /// connect for about two minutes, the kernel's own limit).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "5s",
        value_parser = parse_positive_duration,
        allow_hyphen_values = true
    )]
    pub connect_timeout: Duration,

    /// Print the report as one JSON object on stdout, nothing else.
    #[arg(long)]
    pub json: bool,

    /// Write the run's timeline, one lane per connection: a path ending
    /// in .svg gets a picture, .html an interactive page, .trace.json
    /// Chrome's trace format, .json the timeline's data, for
    /// stack-timelines.
    #[arg(long, value_name = "PATH")]
    pub timeline: Option<PathBuf>,

    /// Show the run live in the terminal while it goes on: each
    /// connection's item and phase, the counts, throughput against the
    /// ideal, the watchdog's word on a stall. q or Ctrl-C stops the run
    /// (its report is printed).
    #[arg(long)]
    pub watch: bool,

    /// How long a run may record nothing before the watchdog says what it
    /// waits on. Hidden: for tests, which cannot wait ten seconds.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "10s",
        value_parser = parse_positive_duration,
        allow_hyphen_values = true,
        hide = true
    )]
    pub stall_after: Duration,

    /// End the run with exit status 1 when the watchdog reports a stall,
    /// instead of waiting on: for scripts and tests, and a stage blocked
    /// on a lock, which would never end.
    #[arg(long)]
    pub stall_ends: bool,

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
/// `print!` would panic with. Most callers want [`print_or_report`], which
/// also says what the error means.
pub fn print(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Where printed text went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printed {
    /// Written.
    Written,
    /// The reader closed its end (`EPIPE`, as when piped into `head`):
    /// nobody wants more, so a program writes nothing more to stdout and
    /// ends quietly, the way `cat` does, with the status its work earned.
    ReaderGone,
}

/// Writes `text` to stdout, and decides what a failure means, once for
/// every binary (Rust ignores `SIGPIPE`, so where `cat` would die of it,
/// `print!` panics instead):
///
/// - a reader that went away is [`Printed::ReaderGone`], no message;
/// - any other error (`> /dev/full`: no space left) is a line on stderr
///   and exit status 1, as coreutils do: output was lost, and a script
///   must know.
///
/// ```no_run
/// use std::process::ExitCode;
/// use testbed::cli::{Printed, print_or_report};
///
/// fn main() -> ExitCode {
///     match print_or_report("hello\n") {
///         Ok(Printed::Written | Printed::ReaderGone) => ExitCode::SUCCESS,
///         Err(status) => status,
///     }
/// }
/// ```
pub fn print_or_report(text: &str) -> Result<Printed, ExitCode> {
    match print(text) {
        Ok(()) => Ok(Printed::Written),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Printed::ReaderGone),
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// Parses the process's arguments; on a bad flag prints one line naming it
/// and the accepted forms, and exits with status 2. `--help` and
/// `--version` print in full and exit 0, as usual.
pub fn parse_or_exit<A: Parser>() -> A {
    match A::try_parse() {
        Ok(args) => args,
        // `--help` and `--version`: on a terminal, clap prints them in
        // colour. Elsewhere they go through the same check as any output,
        // since clap ignores a failed write: `--version > /dev/full` would
        // exit 0 having printed nothing.
        Err(error) if !error.use_stderr() => {
            if std::io::stdout().is_terminal() {
                error.exit()
            }
            let status = match print_or_report(&error.render().to_string()) {
                Ok(_) => 0,
                Err(_) => 1,
            };
            std::process::exit(status)
        }
        Err(error) => {
            eprintln!("{} (see --help)", one_line(&error.render().to_string()));
            std::process::exit(EXIT_USAGE.into())
        }
    }
}

/// The first line of a clap error, with the list that follows it when the
/// line only introduces one ("the following required arguments were not
/// provided:" then one argument a line): without the list, the line names
/// nothing.
fn one_line(rendered: &str) -> String {
    let mut lines = rendered.lines();
    let first = lines.next().unwrap_or("error: bad arguments").trim_end();
    if !first.ends_with(':') {
        return first.to_owned();
    }
    let listed: Vec<&str> = lines
        .take_while(|line| line.starts_with(' '))
        .map(str::trim)
        .collect();
    format!("{first} {}", listed.join(", "))
}

/// Prints a usage error in the same one-line form and returns exit status 2.
pub fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Whether two paths name one file (so that a program can refuse to
/// overwrite its own input or its results): the same device and inode when both
/// exist, the same absolute path (through the real parent directory)
/// when they do not yet.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(a), Ok(b)) = (a.metadata(), b.metadata()) {
        use std::os::unix::fs::MetadataExt;
        return a.dev() == b.dev() && a.ino() == b.ino();
    }
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// `path` with its parent directory resolved, if the parent exists.
fn resolved(path: &Path) -> Option<PathBuf> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Some(parent.canonicalize().ok()?.join(path.file_name()?))
}

fn parse_phases(s: &str) -> Result<Phases, String> {
    match s {
        "1" => Ok(Phases::One),
        "2" => Ok(Phases::Two),
        _ => Err("expected 1 (GET) or 2 (HEAD, then BODY)".into()),
    }
}

/// Parses `--conns`: a whole number of at least 1. Public for other
/// programs' concurrency flags (the race's), so they refuse the same values
/// with the same words.
pub fn parse_conns(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number of at least 1".into()),
    }
}

/// Parses `--items`: a whole number up to [`MAX_ITEMS`]. Public like
/// [`parse_conns`].
pub fn parse_items(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n <= MAX_ITEMS => Ok(n),
        _ => Err(format!(
            "expected a whole number from 0 to {MAX_ITEMS} (the work list is held in memory)"
        )),
    }
}

/// Parses a duration that must be more than zero (every timeout flag): the
/// value parser for such flags, in the stages' own arguments too.
pub fn parse_positive_duration(s: &str) -> Result<Duration, String> {
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
    fn a_missing_argument_is_named_on_the_one_line() {
        #[derive(Parser, Debug)]
        struct Two {
            #[arg(long)]
            out: PathBuf,
            #[arg(required = true)]
            runs: Vec<String>,
        }
        let error = Two::try_parse_from(["two"]).expect_err("both are missing");
        let line = one_line(&error.render().to_string());
        assert!(line.contains("--out") && line.contains("RUNS"), "{line}");
        assert_eq!(one_line("error: plain\n\nUsage: x"), "error: plain");
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
        assert!(s.outage.is_none());
    }

    #[test]
    fn the_largest_list_is_accepted_and_a_path_still_needs_its_value() {
        let max = MAX_ITEMS.to_string();
        let cli =
            Cli::try_parse_from(["stage", "--items", &max]).expect("the bound itself is fine");
        assert_eq!(cli.settings.items, MAX_ITEMS);
        // `--db` does not swallow the next flag as its value.
        let message = error_for(&["--db", "--json"]);
        assert!(message.contains("--db"), "{message}");
    }

    #[test]
    fn bad_values_name_the_flag_and_the_forms() {
        let huge = "10000000000000000000s";
        let cases: [(&[&str], &str, &str); 22] = [
            (&["--latency", "fast"], "--latency", "uniform:1ms..20ms"),
            (&["--faults", "nak=2"], "--faults", "nak, ko, hang"),
            (&["--faults", "nak=0.1,nak=0.2"], "--faults", "given twice"),
            (&["--phases", "3"], "--phases", "1 (GET)"),
            (&["--conns", "0"], "--conns", "at least 1"),
            (&["--read-timeout", "soon"], "--read-timeout", "10ms"),
            (&["--server", "nowhere"], "--server", "nowhere"),
            (&["--outage", "200ms"], "--outage", "START+LENGTH"),
            // Too many to hold: refused here, not by a panic or an abort
            // when the list is allocated.
            (&["--items", "18446744073709551615"], "--items", "10000000"),
            (&["--items", "4294967296"], "--items", "10000000"),
            (&["--items", "10000001"], "--items", "10000000"),
            // Negative values reach the flag's own parser.
            (&["--items", "-1"], "--items", "10000000"),
            (&["--conns", "-3"], "--conns", "at least 1"),
            (&["--latency", "-1ms"], "--latency", "uniform:1ms..20ms"),
            (&["--read-timeout", "-5ms"], "--read-timeout", "positive"),
            (
                &["--connect-timeout", "-1s"],
                "--connect-timeout",
                "positive",
            ),
            (&["--seed", "-1"], "--seed", "-1"),
            // Durations beyond a day: once a panic when a stage added one
            // to the clock.
            (&["--read-timeout", huge], "--read-timeout", "up to a day"),
            (
                &["--connect-timeout", huge],
                "--connect-timeout",
                "up to a day",
            ),
            (&["--latency", huge], "--latency", "at most a day"),
            (&["--outage", "1ms+86401s"], "--outage", "at most a day"),
            (&["--outage", "-1ms+2ms"], "--outage", "START+LENGTH"),
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
