//! `runtime-spec --all`: every behaviour against every runtime, as a
//! table; `runtime-spec NAME...`: only the scenarios named.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let all = runtime_spec::all();
    let chosen: Vec<_> = if args.iter().any(|a| a == "--all") {
        all
    } else if args.is_empty() || args.iter().any(|a| a.starts_with('-')) {
        eprintln!(
            "usage: runtime-spec --all | runtime-spec SCENARIO... (names as `--all` prints them)"
        );
        return ExitCode::from(2);
    } else {
        let unknown: Vec<&String> = args
            .iter()
            .filter(|a| !all.iter().any(|s| s.name == a.as_str()))
            .collect();
        if !unknown.is_empty() {
            eprintln!(
                "runtime-spec: no scenario named {unknown:?}; `runtime-spec --all` lists them all"
            );
            return ExitCode::from(2);
        }
        all.into_iter()
            .filter(|s| args.contains(&s.name.to_owned()))
            .collect()
    };
    runtime_spec::quiet_scenario_panics();
    let (table, failures) = runtime_spec::table(&chosen, &runtime_spec::runtimes());
    print!("{table}");
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
