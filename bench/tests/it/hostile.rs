//! The `race` binary under the hostile user's table: outputs that cannot
//! be written, a saved race that no race wrote, a stdout that fails.

use std::path::Path;
use std::time::Duration;

use testbed::testing::{
    assert_full_stdout_reported, assert_quiet_on_closed_stdout, run_bin, usage_error,
};

const RACE: &str = env!("CARGO_BIN_EXE_race");
const DEADLINE: Duration = Duration::from_secs(60);

/// The smallest race: one contender, one round, a few items.
fn tiny_race(out: &Path) -> std::process::Output {
    let out = out.to_string_lossy().into_owned();
    let args = [
        "--items",
        "20",
        "--overhead-items",
        "50",
        "--conns",
        "4",
        "--only",
        "threads",
        "--rounds",
        "1",
        "--out",
        &out,
    ];
    run_bin(RACE, &args, DEADLINE)
}

/// The table a race prints: its contender's row.
fn has_table(output: &std::process::Output) -> bool {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout.contains("threads") && stdout.contains("items/s")
}

#[test]
fn a_file_that_cannot_be_written_costs_the_file_not_the_results() {
    let out = tempfile::tempdir().expect("a temporary directory");
    // race.json cannot be written: a folder has its name.
    let blocked = out.path().join("race.json");
    std::fs::create_dir(&blocked).expect("a folder");
    let output = tiny_race(out.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(has_table(&output), "the table comes first: {output:?}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.contains(&blocked.display().to_string()), "{stderr}");
}

#[test]
fn replot_names_the_file_it_cannot_write_and_refuses_figures_no_race_makes() {
    let out = tempfile::tempdir().expect("a temporary directory");
    let raced = tiny_race(out.path());
    assert!(raced.status.success(), "{raced:?}");
    let saved = out.path().join("race.json");
    let saved_arg = saved.to_string_lossy().into_owned();

    // An --out nobody can create: the table is printed, the error names it.
    let output = run_bin(
        RACE,
        &["--replot", &saved_arg, "--out", "/proc/x"],
        DEADLINE,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(has_table(&output), "{output:?}");
    assert!(stderr.contains("/proc/x"), "{stderr}");

    // A stdout that fails, on the same saved race.
    let elsewhere = out.path().join("again").to_string_lossy().into_owned();
    let replot = ["--replot", &saved_arg, "--out", &elsewhere];
    assert_quiet_on_closed_stdout(RACE, &replot, 0, DEADLINE);
    assert_full_stdout_reported(RACE, &replot, DEADLINE);

    // Figures no race measures: once `-inf%` and `inf` in the chart.
    let text = std::fs::read_to_string(&saved).expect("the saved race");
    let mut race: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    race["rows"][0]["throughput"] = serde_json::json!(-1e308);
    let edited = out.path().join("edited.json");
    std::fs::write(&edited, race.to_string()).expect("write the edited race");
    let edited_arg = edited.to_string_lossy().into_owned();
    let line = usage_error(
        RACE,
        &["--replot", &edited_arg, "--out", &elsewhere],
        DEADLINE,
    );
    assert!(line.contains("rows[0].throughput"), "{line}");
}
