//! What grading writes: one `results.json` per student and exercise, in
//! the shape of Exercism's test runners (version 3), which tools that
//! read such results already understand; and the class's table, students
//! by exercises, as Markdown for the terminal and a plain HTML page for a
//! browser, with one line per exercise saying how many passed and which
//! known mistake was the commonest.
//!
//! A cell is the one word a teacher needs first: passed, failed (with the
//! known mistakes the tests recognised), does not compile, hung, not
//! started, markers broken. The files a student changed outside the
//! regions get a column of their own: the grade cannot see them (the
//! solution's tests judged the code), so the teacher must.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use super::run::{Run, Status};

/// What grading made of one student's exercise.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Every region is still the starter's.
    NotStarted,
    /// The regions could not be read: why.
    MarkersBroken(String),
    /// The code did not compile: the compiler's errors.
    NoCompile(String),
    /// The tests ran.
    Ran(Run),
}

/// One cell of the class's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Every test passed.
    Passed,
    /// A test failed; the known mistakes the tests recognised.
    Failed(Vec<String>),
    /// The code did not compile.
    NoCompile,
    /// The tests did not finish within the limit.
    Hung,
    /// Every region is still the starter's.
    NotStarted,
    /// The regions' markers are missing or broken.
    MarkersBroken,
}

impl Outcome {
    /// The table's cell for this outcome.
    pub fn cell(&self) -> Cell {
        match self {
            Outcome::NotStarted => Cell::NotStarted,
            Outcome::MarkersBroken(_) => Cell::MarkersBroken,
            Outcome::NoCompile(_) => Cell::NoCompile,
            Outcome::Ran(run) if run.timed_out => Cell::Hung,
            Outcome::Ran(run) if run.tests.iter().any(|t| t.status != Status::Pass) => {
                Cell::Failed(run.hints.clone())
            }
            Outcome::Ran(_) => Cell::Passed,
        }
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Passed => f.write_str("passed"),
            Cell::Failed(names) if names.is_empty() => f.write_str("failed"),
            Cell::Failed(names) => write!(f, "failed ({})", names.join(", ")),
            Cell::NoCompile => f.write_str("does not compile"),
            Cell::Hung => f.write_str("hung"),
            Cell::NotStarted => f.write_str("not started"),
            Cell::MarkersBroken => f.write_str("markers broken"),
        }
    }
}

/// The whole class: a cell per student and exercise, and each student's
/// files changed outside the regions.
#[derive(Debug, Default)]
pub struct Class {
    /// The students, in the order given.
    pub students: Vec<String>,
    /// The exercises, in book order.
    pub exercises: Vec<String>,
    /// `cells[s][e]`: student `s`'s exercise `e`.
    pub cells: Vec<Vec<Cell>>,
    /// `changed[s]`: the files student `s` changed outside the regions.
    pub changed: Vec<Vec<String>>,
    /// `took[s][e]`: how long student `s`'s exercise `e` ran (zero if its
    /// tests did not run).
    pub took: Vec<Vec<Duration>>,
}

/// Exercism's `results.json`, version 3.
#[derive(Serialize)]
struct Results<'a> {
    version: u32,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    tests: Vec<TestJson<'a>>,
}

#[derive(Serialize)]
struct TestJson<'a> {
    name: &'a str,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a str>,
    task_id: usize,
}

/// The `results.json` of one outcome; `limit_secs` is the run's limit.
pub fn results_json(outcome: &Outcome, limit_secs: u64) -> String {
    let error = |message: String| Results {
        version: 3,
        status: "error",
        message: Some(message),
        tests: Vec::new(),
    };
    let results = match outcome {
        Outcome::NotStarted => {
            error("not started: every region is still the starter's todo!()".into())
        }
        Outcome::MarkersBroken(why) => error(format!(
            "markers broken ({why}): each region must stay between its `// TODO:` line and \
             its `// END TODO` line"
        )),
        Outcome::NoCompile(errors) => error(errors.clone()),
        Outcome::Ran(run) => {
            let tests = run
                .tests
                .iter()
                .enumerate()
                .map(|(n, t)| TestJson {
                    name: &t.name,
                    status: match t.status {
                        Status::Pass => "pass",
                        Status::Fail => "fail",
                        Status::Hung => "error",
                    },
                    message: match t.status {
                        Status::Hung => Some(format!("did not finish within {limit_secs} s")),
                        _ => t.message.clone(),
                    },
                    output: t.output.as_deref(),
                    task_id: n + 1,
                })
                .collect();
            let (status, message) = match outcome.cell() {
                Cell::Passed => ("pass", None),
                Cell::Hung => (
                    "error",
                    Some(format!(
                        "timed out: the tests did not finish within {limit_secs} s (an endless \
                         loop, or a wake-up that never comes?)"
                    )),
                ),
                _ => ("fail", None),
            };
            Results {
                version: 3,
                status,
                message,
                tests,
            }
        }
    };
    serde_json::to_string_pretty(&results).unwrap_or_default() + "\n"
}

impl Class {
    /// The class's table in Markdown: a row per student.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let header: Vec<&str> = std::iter::once("student")
            .chain(self.exercises.iter().map(String::as_str))
            .chain(std::iter::once("changed outside the regions"))
            .collect();
        out.push_str(&format!("| {} |\n", header.join(" | ")));
        out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
        for (s, student) in self.students.iter().enumerate() {
            let mut row = vec![markdown_cell(student)];
            row.extend(self.cells[s].iter().map(Cell::to_string));
            row.push(markdown_cell(&self.changed_text(s)));
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out
    }

    fn changed_text(&self, student: usize) -> String {
        match self.changed[student].as_slice() {
            [] => "none".to_owned(),
            files => files.join(", "),
        }
    }

    /// The class's table as an HTML page: one table with a caption and
    /// header cells scoped to their row or column, no script.
    pub fn html(&self) -> String {
        let mut out = String::from(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>The class's exercises</title>\n</head>\n<body>\n\
             <h1>The class's exercises</h1>\n<table>\n\
             <caption>Each student's exercises, graded by the solutions' tests</caption>\n\
             <thead>\n<tr><th scope=\"col\">Student</th>",
        );
        for exercise in &self.exercises {
            out.push_str(&format!("<th scope=\"col\">{}</th>", escape(exercise)));
        }
        out.push_str(
            "<th scope=\"col\">Changed outside the regions</th></tr>\n</thead>\n<tbody>\n",
        );
        for (s, student) in self.students.iter().enumerate() {
            out.push_str(&format!("<tr><th scope=\"row\">{}</th>", escape(student)));
            for cell in &self.cells[s] {
                out.push_str(&format!("<td>{}</td>", escape(&cell.to_string())));
            }
            out.push_str(&format!(
                "<td>{}</td></tr>\n",
                escape(&self.changed_text(s))
            ));
        }
        out.push_str("</tbody>\n</table>\n<h2>Each exercise</h2>\n<ul>\n");
        for line in self.summary() {
            out.push_str(&format!("<li>{}</li>\n", escape(&line)));
        }
        out.push_str("</ul>\n</body>\n</html>\n");
        out
    }

    /// One line per exercise: how many of the students who started it
    /// passed, and the known mistake the tests recognised most often.
    pub fn summary(&self) -> Vec<String> {
        self.exercises
            .iter()
            .enumerate()
            .map(|(e, exercise)| {
                let column: Vec<&Cell> = self.cells.iter().map(|row| &row[e]).collect();
                let started = column
                    .iter()
                    .filter(|c| !matches!(c, Cell::NotStarted))
                    .count();
                let passed = column.iter().filter(|c| **c == &Cell::Passed).count();
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for cell in &column {
                    if let Cell::Failed(names) = cell {
                        for name in names {
                            *counts.entry(name).or_default() += 1;
                        }
                    }
                }
                // The commonest; among equals, the first by name.
                let commonest = counts
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                    .map_or_else(
                        || "none recognised".to_owned(),
                        |(n, c)| format!("{n} ({c})"),
                    );
                format!("{exercise}: {passed} of {started} passed; commonest mistake: {commonest}")
            })
            .collect()
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `text` as one cell of a Markdown table: a `|` would end the cell and
/// a line break the row (a student's file name may hold either).
fn markdown_cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace("\r\n", "\\n")
        .replace(['\n', '\r'], "\\n")
}

#[cfg(test)]
mod tests {
    use super::super::run::TestResult;
    use super::*;

    #[test]
    fn a_cell_keeps_its_row_whatever_a_file_name_holds() {
        assert_eq!(markdown_cell("a|b\nc\r\nd"), "a\\|b\\nc\\nd");
        assert!(!markdown_cell("x\ry\n").contains(['\n', '\r']));
    }

    fn class() -> Class {
        let failed = |names: &[&str]| Cell::Failed(names.iter().map(|n| n.to_string()).collect());
        Class {
            students: vec!["ada".into(), "bo<b>".into(), "cy".into()],
            exercises: vec!["ch06-channel".into(), "ch01-deadline".into()],
            cells: vec![
                vec![failed(&["if-instead-of-loop"]), Cell::Passed],
                vec![
                    failed(&["if-instead-of-loop", "never-sees-close"]),
                    Cell::NotStarted,
                ],
                vec![Cell::Passed, Cell::Hung],
            ],
            changed: vec![vec![], vec!["Cargo.toml".into()], vec![]],
            took: Vec::new(),
        }
    }

    #[test]
    fn each_exercise_says_how_many_passed_and_the_commonest_mistake() {
        assert_eq!(
            class().summary(),
            [
                "ch06-channel: 1 of 3 passed; commonest mistake: if-instead-of-loop (2)",
                "ch01-deadline: 1 of 2 passed; commonest mistake: none recognised",
            ]
        );
    }

    #[test]
    fn the_tables_have_a_row_per_student_and_the_changed_files() {
        let md = class().markdown();
        assert!(md.starts_with("| student | ch06-channel | ch01-deadline | changed outside the regions |\n|---|---|---|---|\n"), "{md}");
        assert!(md.contains("| bo<b> | failed (if-instead-of-loop, never-sees-close) | not started | Cargo.toml |"), "{md}");
        let html = class().html();
        assert!(html.contains("<caption>") && html.contains("<th scope=\"row\">bo&lt;b&gt;</th>"));
        assert!(!html.contains("<script"));
    }

    #[test]
    fn results_follow_exercism_s_version_3() -> anyhow::Result<()> {
        let run = Run {
            tests: vec![
                TestResult {
                    name: "a".into(),
                    status: Status::Pass,
                    message: None,
                    output: None,
                },
                TestResult {
                    name: "b".into(),
                    status: Status::Hung,
                    message: None,
                    output: None,
                },
            ],
            timed_out: true,
            ..Run::default()
        };
        let json: serde_json::Value = serde_json::from_str(&results_json(&Outcome::Ran(run), 20))?;
        assert_eq!(json["version"], 3);
        assert_eq!(json["status"], "error");
        assert!(json["message"].as_str().is_some_and(|m| m.contains("20 s")));
        assert_eq!(json["tests"][1]["task_id"], 2);
        assert_eq!(json["tests"][1]["status"], "error");
        assert!(json["tests"][0].get("message").is_none());
        let json: serde_json::Value = serde_json::from_str(&results_json(
            &Outcome::NoCompile("error[E0308]".into()),
            20,
        ))?;
        assert_eq!(
            (&json["status"], &json["message"]),
            (&"error".into(), &"error[E0308]".into())
        );
        Ok(())
    }
}
