//! `cargo xtask figures --check`: each committed figure against its own
//! data and against a fresh run of its command.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, bail};

use super::data::{RunData, differences, format_change, parse_data, report_keys};
use super::list::{Figure, Source, all_commands, commands};
use super::stages::execute;
use super::svg::page_reports;
use super::table::markdown;
use super::{DIR, has_page};

/// How many fresh runs a figure gets before its differences count.
const ATTEMPTS: u32 = 3;

/// Checks the chosen figures against their committed Markdown and a fresh
/// run; every problem is listed before failing.
pub(super) fn check_all(root: &Path, bins: &Path, chosen: &[&Figure]) -> Result<()> {
    let dir = root.join(DIR);
    let mut problems = Vec::new();
    let started = std::time::Instant::now();
    let commands_by_name = all_commands(root)?;
    for figure in chosen {
        let path = dir.join(format!("{}.md", figure.name));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        let mut found = check_committed(figure, &committed, &commands_by_name);
        let data = parse_data(&committed).ok().map(|(data, _)| data);
        for (i, run) in figure.runs.iter().enumerate() {
            let Some(recorded) = data.as_ref().and_then(|d| d.runs.get(i)) else {
                break;
            };
            match &run.source {
                Source::Figure(other) => {
                    // The same run must show the same numbers in both.
                    let theirs = std::fs::read_to_string(dir.join(format!("{other}.md")))
                        .ok()
                        .and_then(|text| parse_data(&text).ok())
                        .and_then(|(d, _)| d.runs.into_iter().next());
                    let same = theirs.as_ref().is_some_and(|t| {
                        RunData {
                            label: recorded.label.clone(),
                            ..t.clone()
                        } == *recorded
                    });
                    if !same {
                        found.push(format!(
                            "run {} reuses figure {other}, but its figures differ from {other}.md's",
                            i + 1
                        ));
                    }
                }
                Source::Command { .. } => {
                    let label = recorded.label.clone();
                    let mut attempts = 0;
                    let differences = loop {
                        attempts += 1;
                        let report = execute(bins, run, None)?;
                        let now = RunData::from_report(&label, &report)?;
                        let differences = differences(recorded, &now);
                        if let Some(keys) = data.as_ref().map(|d| &d.keys)
                            && *keys != report_keys(&report)
                        {
                            found.push(format_change(keys, &report_keys(&report)));
                        }
                        // A busy machine can turn a slow reply into a
                        // timeout; give a quieter moment a chance.
                        if differences.is_empty() || attempts == ATTEMPTS {
                            break differences;
                        }
                    };
                    let timing = differences.iter().any(|d| d.contains("timeout"));
                    for d in differences {
                        found.push(format!("run {}: a fresh run gives {d}", i + 1));
                    }
                    if timing {
                        found.push(format!(
                            "run {}: ({ATTEMPTS} runs in a row; a machine too busy to answer within \
                             the read timeout turns slow replies into timeouts: if the injected \
                             faults agree, rerun the check when the machine is quieter)",
                            i + 1
                        ));
                    }
                }
            }
        }
        if has_page(&figure.name)
            && let Some(data) = &data
        {
            found.extend(check_page(&dir, &figure.name, &data.runs));
        }
        found.dedup();
        if found.is_empty() {
            println!("figure {}: ok", figure.name);
        } else {
            println!("figure {}: FAILED", figure.name);
            problems.extend(found.into_iter().map(|p| format!("{}: {p}", figure.name)));
        }
    }
    println!(
        "{} figures checked in {:.0} s",
        chosen.len(),
        started.elapsed().as_secs_f64()
    );
    if !problems.is_empty() {
        bail!(
            "the book's figures disagree with their runs:\n  {}\n\
             Remake them with `cargo xtask figures` (or `cargo xtask figures NAME`) and commit.",
            problems.join("\n  ")
        );
    }
    Ok(())
}

/// A figure's page shows the runs its Markdown records: the same reports,
/// number for number (both were made from the same runs).
fn check_page(dir: &Path, name: &str, recorded: &[RunData]) -> Vec<String> {
    let path = dir.join(format!("{name}.html"));
    let Some(reports) = std::fs::read_to_string(&path)
        .ok()
        .and_then(|page| page_reports(&page))
    else {
        return vec![format!("{name}.html is missing or has no runs in it")];
    };
    if reports.len() != recorded.len() {
        return vec![format!(
            "{name}.html shows {} runs, {name}.md records {}",
            reports.len(),
            recorded.len()
        )];
    }
    let differs = recorded.iter().zip(&reports).any(|(run, report)| {
        RunData::from_report(&run.label, report).map_or(true, |shown| shown != *run)
    });
    if differs {
        vec![format!(
            "{name}.html shows other runs than {name}.md records: remake both with `cargo xtask figures {name}`"
        )]
    } else {
        Vec::new()
    }
}

/// The checks that need no run: data present and undamaged, tables as the
/// data renders them, formulas that hold.
pub(super) fn check_committed(
    figure: &Figure,
    committed: &str,
    commands_by_name: &BTreeMap<String, String>,
) -> Vec<String> {
    let (data, json) = match parse_data(committed) {
        Ok(found) => found,
        Err(e) => return vec![format!("{e:#}; remake it with `cargo xtask figures`")],
    };
    let mut found = Vec::new();
    if data.runs.len() != figure.runs.len() {
        found.push(format!(
            "it records {} runs, its .cmd has {}",
            data.runs.len(),
            figure.runs.len()
        ));
        return found;
    }
    match commands(figure, commands_by_name).and_then(|c| markdown(figure, &c, &json)) {
        Ok(expected) if expected != committed => {
            let line = expected
                .lines()
                .zip(committed.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| expected.lines().count().min(committed.lines().count()));
            found.push(format!(
                "its text is not what its data and .cmd make (first difference at line {}): \
                 edited by hand, or its .cmd changed",
                line + 1
            ));
        }
        Ok(_) => {}
        Err(e) => found.push(format!("{e:#}")),
    }
    for (i, run) in data.runs.iter().enumerate() {
        for error in run.formula_errors() {
            found.push(format!("run {}: {error}", i + 1));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::data::Data;
    use crate::figures::data::tests::sample;
    use crate::figures::list::tests::figure;

    #[test]
    fn a_hand_edited_number_is_caught() {
        let figure = figure();
        let commands = vec!["cargo run --release --bin 02-fork -- --items 200".to_owned()];
        let data = Data {
            keys: vec!["items".into()],
            runs: vec![sample()],
        };
        let md = markdown(&figure, &commands, &data.to_json()).expect("renders");
        let by_name = BTreeMap::new();
        assert_eq!(
            check_committed(&figure, &md, &by_name),
            Vec::<String>::new()
        );
        // In the table...
        let edited = md.replacen("| 14.4 ms |", "| 12.4 ms |", 1);
        assert_ne!(edited, md);
        assert!(!check_committed(&figure, &edited, &by_name).is_empty());
        // ...or in the data line.
        let edited = md.replacen("\"p99_ms\":14.4", "\"p99_ms\":12.4", 1);
        assert_ne!(edited, md);
        assert!(!check_committed(&figure, &edited, &by_name).is_empty());
    }
}
