//! `runtime-spec --all`: every behaviour against every runtime, as a
//! table; `runtime-spec NAME...`: only the scenarios named;
//! `--runtime NAME` one runtime's column, `--seed N` 07's executor in the
//! order drawn from seed `N` (what a failure under a seed says to type);
//! `--markdown` the table for the book; `--traces NAME` one scenario's
//! traces side by side on the one-thread runtimes.

use std::process::ExitCode;

use runtime_spec::cli::{self, Task};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let task = match cli::parse(&args) {
        Ok(task) => task,
        Err(line) => {
            eprintln!("{line}");
            return ExitCode::from(2);
        }
    };
    runtime_spec::quiet_scenario_panics();
    let (text, failures) = match task {
        Task::Table {
            scenarios,
            runtimes,
            markdown: false,
        } => runtime_spec::table(&scenarios, &runtimes),
        Task::Table {
            scenarios,
            runtimes,
            markdown: true,
        } => runtime_spec::markdown::table(&scenarios, &runtimes),
        Task::Traces(scenario) => {
            // The one-thread runtimes: their traces can be read in order.
            let one_thread: Vec<_> = runtime_spec::runtimes()
                .into_iter()
                .filter(|rt| !rt.parallel())
                .collect();
            runtime_spec::markdown::traces(&scenario, &one_thread)
        }
    };
    print!("{text}");
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
