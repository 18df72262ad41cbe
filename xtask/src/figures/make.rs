//! `cargo xtask figures`: remakes the chosen figures from fresh runs.

use std::path::Path;

use anyhow::{Context, Result};

use super::data::{Data, RunData, report_keys};
use super::list::{Figure, Source, all_commands, commands};
use super::stages::{execute, label};
use super::svg::stack;
use super::table::markdown;
use super::{DIR, has_page};

/// Remakes the chosen figures: their runs, pictures and tables.
pub(super) fn regenerate(
    root: &Path,
    bins: &Path,
    scratch: &Path,
    chosen: &[&Figure],
) -> Result<()> {
    let dir = root.join(DIR);
    for figure in chosen {
        let mut made = Vec::new();
        for (i, run) in figure.runs.iter().enumerate() {
            let json = match &run.source {
                Source::Command { .. } => {
                    let json = scratch.join(format!("{}-{}.json", figure.name, i + 1));
                    let report = execute(bins, run, Some(&json))?;
                    (json, report)
                }
                // The other figure was remade first (`chosen` orders them).
                Source::Figure(other) => {
                    let json = scratch.join(format!("{other}-1.json"));
                    let text = std::fs::read_to_string(&json)
                        .with_context(|| format!("figure {other} has not been run"))?;
                    let timeline: serde_json::Value = serde_json::from_str(&text)?;
                    (json, timeline["report"].clone())
                }
            };
            made.push(json);
        }
        let labels: Vec<String> = figure
            .runs
            .iter()
            .zip(&made)
            .map(|(run, (_, report))| label(run, report))
            .collect();
        let runs: Vec<(&Path, &str)> = made
            .iter()
            .zip(&labels)
            .map(|((json, _), label)| (json.as_path(), label.as_str()))
            .collect();
        stack(bins, &dir.join(format!("{}.svg", figure.name)), &runs)?;
        if has_page(&figure.name) {
            stack(bins, &dir.join(format!("{}.html", figure.name)), &runs)?;
        }
        let keys = report_keys(&made[0].1);
        let runs = made
            .iter()
            .zip(&labels)
            .map(|((_, report), label)| RunData::from_report(label, report))
            .collect::<Result<Vec<_>>>()?;
        let commands = commands(figure, &all_commands(root)?)?;
        let text = markdown(figure, &commands, &Data { keys, runs }.to_json())?;
        std::fs::write(dir.join(format!("{}.md", figure.name)), text)?;
        println!("figure {}: {}", figure.name, commands.join("; "));
    }
    Ok(())
}
