//! The report's verdicts and figures, on hand-made rows.

use std::time::Duration;

use super::*;
use crate::faults::Fault;
use crate::outcome::Failure;
use crate::store::Lane;
use crate::workload::items;

fn facts(faults: Option<(FaultPlan, u64)>) -> RunFacts {
    RunFacts {
        concurrency: 2,
        elapsed: Duration::from_secs(1),
        mean_service: Duration::from_millis(100),
        faults,
        server_peak_conns: Some(2),
        server_accepted: Some(2),
        db_connections: 1,
        ..RunFacts::new("test", Phases::One)
    }
}

fn row(item: &Item, outcome: crate::outcome::Outcome) -> Row {
    Row {
        id: item.id,
        outcome,
        started_us: 0,
        finished_us: 1_000 * (item.id.0 + 1),
        lane: Lane(0),
        db_conn: 1,
    }
}

#[test]
fn classifies_every_item() {
    let list = items(5, 1);
    let rows = vec![
        row(&list[0], Ok(list[0].expected_result())),
        row(&list[1], Ok(crate::protocol::ResultHash(1))),
        row(&list[2], Err(Failure::new(ErrorKind::Timeout, "slow"))),
        // list[3] is lost; list[4] is fine.
        row(&list[4], Ok(list[4].expected_result())),
    ];
    let report = Report::build(&list, &rows, facts(None));
    assert_eq!(
        (report.ok, report.failed, report.lost, report.wrong),
        (2, 1, 1, 1)
    );
    assert_eq!(report.lost_ids, [3]);
    assert_eq!(report.errors.get("timeout"), Some(&1));
    assert!(!report.is_sound());
    // Little's law: 2 in flight / 0.1 s = 20 items/s; 4 items have an
    // outcome (the lost one does not count as done) in 1 s.
    assert_eq!(report.ideal_throughput, Some(20.0));
    assert_eq!(report.throughput, 4.0);
    assert_eq!(report.efficiency, Some(0.2));
    assert_eq!(report.latency_ms.max, 5.0);
}

#[test]
fn failing_fast_is_not_efficient() {
    // A server that is down: every connect refused in a millisecond.
    let list = items(4, 1);
    let refused = |item| row(item, Err(Failure::new(ErrorKind::Refused, "down")));
    let rows: Vec<Row> = list.iter().map(refused).collect();
    let report = Report::build(&list, &rows, facts(None));
    assert_eq!(report.throughput, 4.0, "outcomes per second, still");
    assert_eq!(report.efficiency, None, "nothing reached the server");

    // Half refused: only the half that was served counts as work.
    let mut rows = rows;
    rows[0] = row(&list[0], Ok(list[0].expected_result()));
    rows[1] = row(&list[1], Ok(list[1].expected_result()));
    let report = Report::build(&list, &rows, facts(None));
    assert_eq!(report.ideal_throughput, Some(20.0));
    assert_eq!(report.efficiency, Some(2.0 / 20.0));
}

#[test]
fn knows_which_failures_the_server_forced() {
    let plan = FaultPlan::none().with(Fault::Ko, 1.0);
    let list = items(3, 1);
    let rows = vec![
        row(&list[0], Err(Failure::new(ErrorKind::Ko, "KO"))),
        row(&list[1], Ok(list[1].expected_result())),
        row(&list[2], Err(Failure::new(ErrorKind::Timeout, "slow"))),
    ];
    let report = Report::build(&list, &rows, facts(Some((plan, 1))));
    assert_eq!((report.ok, report.failed, report.wrong), (0, 2, 1));
    assert_eq!(
        report.expected_errors.as_ref().and_then(|e| e.get("ko")),
        Some(&3)
    );
    assert!(report.wrong_rows[0].contains("recorded ok"));
}

#[test]
fn an_invented_nak_is_wrong() {
    let list = items(1, 1);
    let rows = vec![row(&list[0], Err(Failure::new(ErrorKind::Nak, "?")))];
    let report = Report::build(&list, &rows, facts(Some((FaultPlan::none(), 1))));
    assert_eq!(report.wrong, 1);
}

#[test]
fn json_has_the_contract_keys() {
    let report = Report::build(&items(1, 1), &[], facts(None));
    let json: serde_json::Value =
        serde_json::from_str(&report.to_json()).expect("the report is valid JSON");
    // `server_accepted` is newer than the contract list, and kept too.
    for key in CONTRACT_KEYS.into_iter().chain(["server_accepted"]) {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    for key in ["p50", "p99", "max"] {
        assert!(
            json["latency_ms"].get(key).is_some(),
            "missing latency_ms.{key}"
        );
    }
}

#[test]
fn a_run_that_reached_no_server_is_a_problem_without_efficiency() {
    // `01-sync --server 127.0.0.1:1`, and against an HTTP server.
    for kind in [ErrorKind::Refused, ErrorKind::Protocol] {
        let list = items(5, 1);
        let fail = |item| row(item, Err(Failure::new(kind, "no SLOW/1 here")));
        let rows: Vec<Row> = list.iter().map(fail).collect();
        let report = Report::build(&list, &rows, facts(None));
        assert_eq!((report.lost, report.wrong), (0, 0));
        assert!(!report.is_sound(), "{kind}: {report}");
        assert_eq!(report.efficiency, None, "{kind}");
        assert!(report.problems[0].contains("no item reached"), "{report}");
        assert!(report.to_string().contains(&format!(
            "problem: no item reached a working SLOW/1 server ({kind} 5)"
        )));
    }
}

#[test]
fn a_server_that_answers_nak_was_reached_and_injected_failures_are_no_problem() {
    let list = items(4, 1);
    let nak = |item| row(item, Err(Failure::new(ErrorKind::Nak, "no")));
    let rows: Vec<Row> = list.iter().map(nak).collect();
    assert!(Report::build(&list, &rows, facts(None)).is_sound());

    // `drop=1`: every item closed, as the plan says.
    let plan = FaultPlan::none().with(Fault::Drop, 1.0);
    let closed = |item| row(item, Err(Failure::new(ErrorKind::Closed, "dropped")));
    let rows: Vec<Row> = list.iter().map(closed).collect();
    let report = Report::build(&list, &rows, facts(Some((plan, 1))));
    assert!(report.is_sound(), "{report}");
    assert!(report.notes.is_empty(), "{report}");
}

#[test]
fn errors_that_differ_from_the_injected_faults_are_noted_kind_by_kind() {
    // Half the items hang; the client timed out on all of them but one,
    // where it saw the connection close instead.
    let plan = FaultPlan::none().with(Fault::Hang, 0.5);
    let list = items(20, 1);
    let mut closed_one = false;
    let rows: Vec<Row> = list
        .iter()
        .map(|item| match plan.expected(1, item.id, Phases::One) {
            None => row(item, Ok(item.expected_result())),
            Some(_) if !closed_one => {
                closed_one = true;
                row(item, Err(Failure::new(ErrorKind::Closed, "gone")))
            }
            Some(kind) => row(item, Err(Failure::new(kind, "slow"))),
        })
        .collect();
    let hung = list
        .iter()
        .filter(|item| plan.expected(1, item.id, Phases::One).is_some())
        .count();
    assert!(hung > 1, "the plan should hang a few of 20");
    let report = Report::build(&list, &rows, facts(Some((plan, 1))));
    assert!(report.is_sound(), "a note, not a problem: {report}");
    assert_eq!(report.notes.len(), 1, "{report}");
    let note = &report.notes[0];
    assert!(
        note.contains("closed 1 where the server injected 0 (+1)"),
        "{note}"
    );
    let timeouts = format!("timeout {} where the server injected {hung} (-1)", hung - 1);
    assert!(note.contains(&timeouts), "{note}");
}

#[test]
fn a_dead_server_is_a_problem_and_not_an_external_one() {
    let list = items(2, 1);
    let rows: Vec<Row> = list
        .iter()
        .map(|i| row(i, Ok(i.expected_result())))
        .collect();
    let died = RunFacts {
        server_peak_conns: None,
        server_died: Some("killed by SIGKILL".into()),
        ..facts(None)
    };
    let report = Report::build(&list, &rows, died);
    assert!(!report.is_sound());
    assert!(report.problems[0].contains("killed by SIGKILL"), "{report}");
    let text = report.to_string();
    assert!(text.contains("server peak unknown,"), "{text}");
    assert!(!text.contains("external"), "{text}");
}

#[test]
fn in_flight_is_what_the_run_could_have_in_flight() {
    let list = items(3, 1);
    let rows: Vec<Row> = list
        .iter()
        .map(|i| row(i, Ok(i.expected_result())))
        .collect();
    let wide = RunFacts {
        concurrency: 100_000,
        ..facts(None)
    };
    let text = Report::build(&list, &rows, wide).to_string();
    assert!(text.contains("connections  3 in flight"), "{text}");
}

#[test]
fn an_external_server_that_went_away_is_a_problem_without_efficiency() {
    let list = items(4, 1);
    let rows: Vec<Row> = list
        .iter()
        .map(|i| row(i, Ok(i.expected_result())))
        .collect();
    let gone = RunFacts {
        external_server: true,
        server_died: Some("127.0.0.1:9 now refuses connections".into()),
        ..facts(None)
    };
    let report = Report::build(&list, &rows, gone);
    assert!(!report.is_sound());
    assert_eq!(report.efficiency, None, "{report}");
    assert!(report.problems[0].contains("went away"), "{report}");
    assert!(report.to_string().contains("no efficiency"), "{report}");
}

#[test]
fn a_run_with_nothing_to_measure_says_why_it_has_no_efficiency() {
    // `--items 0`, and an interrupted run that recorded nothing: the line
    // once said "see the problem below", with no problem below.
    let empty = Report::build(&[], &[], facts(None));
    assert_eq!(empty.efficiency, None);
    let text = empty.to_string();
    assert!(
        text.contains("(no efficiency: the run had no items)"),
        "{text}"
    );
    assert!(!text.contains("problem below"), "{text}");

    let list = items(3, 1);
    let nothing = Report::build(&list, &[], facts(None));
    let text = nothing.to_string();
    assert!(
        text.contains("(no efficiency: no item was recorded)"),
        "{text}"
    );

    let refused = |item| row(item, Err(Failure::new(ErrorKind::Refused, "down")));
    let rows: Vec<Row> = list.iter().map(refused).collect();
    let text = Report::build(&list, &rows, facts(None)).to_string();
    assert!(text.contains("see the problem below"), "{text}");
    assert!(text.contains("problem: no item reached"), "{text}");
}

#[test]
fn items_that_all_timed_out_under_a_read_timeout_blame_the_timeout() {
    // `08-uring --read-timeout 1us`: the embedded server was fine, and the
    // problem once said "no item reached a working SLOW/1 server".
    let list = items(4, 1);
    let late = |item| row(item, Err(Failure::new(ErrorKind::Timeout, "no reply")));
    let rows: Vec<Row> = list.iter().map(late).collect();
    let short = RunFacts {
        read_timeout: Some(Duration::from_micros(1)),
        ..facts(None)
    };
    let report = Report::build(&list, &rows, short);
    assert_eq!(report.efficiency, None);
    let problem = &report.problems[0];
    assert!(problem.contains("within --read-timeout 1us"), "{problem}");
    assert!(problem.contains("longer --read-timeout"), "{problem}");
    assert!(!problem.contains("working SLOW/1 server"), "{problem}");
}

#[test]
fn lints_print_as_warnings_after_the_notes_and_are_always_in_the_json() {
    let list = items(2, 1);
    let rows: Vec<Row> = list
        .iter()
        .map(|item| row(item, Ok(item.expected_result())))
        .collect();
    let quiet = Report::build(&list, &rows, facts(None));
    let json = serde_json::to_value(&quiet).expect("plain data");
    assert_eq!(
        json["lints"],
        serde_json::json!([]),
        "present, empty: {json}"
    );
    let mut facts = facts(None);
    facts.notes.push("a note".into());
    facts.lints.push("one poll of task 3 took 40 ms".into());
    let report = Report::build(&list, &rows, facts);
    let text = report.to_string();
    let (note, warning) = (
        text.find("note: a note").expect("the note is printed"),
        text.find("warning: one poll of task 3 took 40 ms")
            .expect("the lint is printed as a warning"),
    );
    assert!(note < warning, "warnings come after the notes: {text}");
    let json = serde_json::to_value(&report).expect("plain data");
    assert_eq!(json["lints"][0], "one poll of task 3 took 40 ms");
    assert!(report.is_sound(), "a lint alone does not fail the run");
}
