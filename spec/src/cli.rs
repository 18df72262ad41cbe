//! The command line of `runtime-spec`: which scenarios, on which runtimes,
//! printed how. Bad input is one line on stderr and exit status 2.

use std::sync::Arc;

use crate::rt_executor::{EXECUTOR, Executor07};
use crate::runner::Runtime;
use crate::script::Scenario;
use crate::table::runtimes;

/// The usage line, printed with every usage error.
pub const USAGE: &str = "usage: runtime-spec [--runtime NAME] [--seed N] [--markdown] (--all | SCENARIO...), or runtime-spec --traces SCENARIO";

/// What to do.
#[derive(Clone)]
pub enum Task {
    /// The table of `scenarios` against `runtimes`, as text or Markdown.
    Table {
        /// The rows.
        scenarios: Vec<Scenario>,
        /// The columns.
        runtimes: Vec<Arc<dyn Runtime>>,
        /// Markdown for the book, rather than text for a terminal.
        markdown: bool,
    },
    /// One scenario's expected trace and each runtime's, side by side, in
    /// Markdown.
    Traces(Scenario),
}

/// Reads the arguments (without the program's name); `Err` is the one
/// line to print before exiting with status 2.
pub fn parse(args: &[String]) -> Result<Task, String> {
    let all = crate::all();
    let (mut runtime, mut seed, mut markdown, mut every) = (None, None, false, false);
    let mut names = Vec::new();
    let mut traces = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| format!("runtime-spec: {flag} needs a value; {USAGE}"))
        };
        match arg.as_str() {
            "--all" => every = true,
            "--markdown" => markdown = true,
            "--runtime" => runtime = Some(value("--runtime")?),
            "--seed" => {
                let text = value("--seed")?;
                let n = text.parse::<u64>().map_err(|_| {
                    format!(
                        "runtime-spec: --seed takes a whole number from 0 to 2^64-1, not `{text}`"
                    )
                })?;
                seed = Some(n);
            }
            "--traces" => traces = Some(value("--traces")?),
            flag if flag.starts_with('-') => {
                return Err(format!("runtime-spec: unknown flag `{flag}`; {USAGE}"));
            }
            name => names.push(name.to_owned()),
        }
    }
    let find = |name: &str| {
        all.iter().find(|s| s.name == name).cloned().ok_or_else(|| {
            format!("runtime-spec: no scenario named `{name}`; `runtime-spec --all` lists them all")
        })
    };
    if let Some(name) = traces {
        if every || !names.is_empty() || runtime.is_some() || seed.is_some() {
            return Err(format!(
                "runtime-spec: --traces takes one scenario and no other flag; {USAGE}"
            ));
        }
        return Ok(Task::Traces(find(&name)?));
    }
    let scenarios = match (every, names.is_empty()) {
        (true, true) => all.clone(),
        (false, false) => names.iter().map(|n| find(n)).collect::<Result<_, _>>()?,
        (true, false) => {
            return Err(format!(
                "runtime-spec: --all and scenario names together; give one or the other. {USAGE}"
            ));
        }
        (false, true) => return Err(format!("runtime-spec: no scenario named. {USAGE}")),
    };
    Ok(Task::Table {
        scenarios,
        runtimes: chosen_runtimes(runtime.as_deref(), seed)?,
        markdown,
    })
}

/// Every runtime, or the one named; a seed goes to 07's executor, the one
/// runtime that takes one.
fn chosen_runtimes(name: Option<&str>, seed: Option<u64>) -> Result<Vec<Arc<dyn Runtime>>, String> {
    let mut chosen = runtimes();
    if let Some(name) = name {
        chosen.retain(|rt| rt.name() == name);
        if chosen.is_empty() {
            let known: Vec<&str> = runtimes().iter().map(|rt| rt.name()).collect();
            return Err(format!(
                "runtime-spec: no runtime named `{name}`; the runtimes are {}",
                known.join(", ")
            ));
        }
    }
    if let Some(seed) = seed {
        if !chosen.iter().any(|rt| rt.name() == EXECUTOR) {
            return Err(format!(
                "runtime-spec: --seed orders {EXECUTOR}'s ready tasks, and {EXECUTOR} is not among the runtimes chosen; add --runtime {EXECUTOR}"
            ));
        }
        for rt in &mut chosen {
            if rt.name() == EXECUTOR {
                *rt = Arc::new(Executor07 { seed: Some(seed) });
            }
        }
    }
    Ok(chosen)
}
