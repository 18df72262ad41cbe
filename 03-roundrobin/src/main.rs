//! `03-roundrobin`: stage 3 as a program. Arguments, then the harness does
//! the rest.

use std::process::ExitCode;

use clap::Parser;
use roundrobin::{Chain, Dispatch, Drain, Model, RoundRobin};
use testbed::cli::{Settings, parse_or_exit};

/// Stage 3 of async-ladder: N connection wrappers visited in turn, one
/// process, one database connection.
#[derive(Debug, Parser)]
#[command(name = "03-roundrobin", version)]
struct Args {
    #[command(flatten)]
    settings: Settings,

    /// The loop: single (one dispose per visit), multi (skip wrappers still
    /// working); default: single for --phases 1, multi for --phases 2.
    #[arg(long = "loop", value_name = "LOOP", value_parser = parse_dispatch)]
    dispatch: Option<Dispatch>,

    /// How the last requests are finished: round-robin, or in-order (the
    /// source article's: each wrapper to its end, one after another).
    #[arg(long, default_value = "round-robin", value_parser = parse_drain)]
    drain: Drain,

    /// How the phases are written: closures (each returns the next) or enum
    /// (an explicit state machine).
    #[arg(long, default_value = "closures", value_parser = parse_chain)]
    chain: Chain,
}

fn main() -> ExitCode {
    let args: Args = parse_or_exit();
    let settings = &args.settings;
    let stage = RoundRobin {
        dispatch: args.dispatch,
        drain: args.drain,
        chain: args.chain,
        // The model needs the server's latency and faults: known only when
        // the server is our own.
        model: settings
            .server
            .is_none()
            .then(|| Model::from_settings(settings)),
    };
    testbed::harness::main(&stage, settings)
}

fn parse_dispatch(s: &str) -> Result<Dispatch, String> {
    [Dispatch::SinglePhase, Dispatch::MultiPhase]
        .into_iter()
        .find(|d| d.as_str() == s)
        .ok_or_else(|| "expected single or multi".into())
}

fn parse_drain(s: &str) -> Result<Drain, String> {
    [Drain::RoundRobin, Drain::InOrder]
        .into_iter()
        .find(|d| d.as_str() == s)
        .ok_or_else(|| "expected round-robin or in-order".into())
}

fn parse_chain(s: &str) -> Result<Chain, String> {
    [Chain::Closures, Chain::Enum]
        .into_iter()
        .find(|c| c.as_str() == s)
        .ok_or_else(|| "expected closures or enum".into())
}
