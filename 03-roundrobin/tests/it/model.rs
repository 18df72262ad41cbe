//! The model runs the same loop as the stage: it must assign every item to
//! the wrapper the real run used, and predict the failures the server
//! injected.

use std::collections::BTreeMap;
use std::time::Duration;

use roundrobin::{Dispatch, Drain, Model, RoundRobin};
use testbed::cli::Settings;
use testbed::conformance::{assert_run_conforms, quick_settings};
use testbed::protocol::Phases;
use testbed::workload::items;

#[track_caller]
fn assert_model_matches_the_run(settings: &Settings, dispatch: Dispatch) {
    let model = Model::from_settings(settings);
    let stage = RoundRobin {
        dispatch: Some(dispatch),
        model: Some(model),
        ..RoundRobin::default()
    };
    let execution = assert_run_conforms(&stage, settings);
    let work = items(settings.items, settings.seed);
    let predicted = model
        .predict(settings.conns, &work, dispatch, Drain::RoundRobin)
        .expect("the model runs the loop the stage ran");

    let real: BTreeMap<u64, (u32, Option<&str>)> = execution
        .rows
        .iter()
        .map(|row| {
            let failure = row.outcome.as_ref().err().map(|f| f.kind.as_str());
            (row.id.0, (row.lane.0, failure))
        })
        .collect();
    let virtual_rows: BTreeMap<u64, (u32, Option<&str>)> = predicted
        .rows()
        .iter()
        .map(|row| {
            let lane = row.wrapper.lane().0;
            (row.id.0, (lane, row.failure.map(|kind| kind.as_str())))
        })
        .collect();
    assert_eq!(
        real, virtual_rows,
        "same wrapper and outcome for every item"
    );
    assert!(
        execution.report.stage_stats.contains_key("model_elapsed_s"),
        "the report carries the prediction"
    );
}

#[test]
fn the_model_assigns_items_like_the_multi_phase_loop() {
    let settings = Settings {
        faults: "nak=0.1,ko=0.1,drop=0.05,garbage=0.05,hang=0.03,trickle=0.1"
            .parse()
            .expect("a valid fault spec"),
        read_timeout: Some(Duration::from_millis(200)),
        latency: "bimodal:0.2:4ms:1ms".parse().expect("a valid latency spec"),
        ..quick_settings()
    };
    assert_model_matches_the_run(&settings, Dispatch::MultiPhase);
}

#[test]
fn the_model_assigns_items_like_the_single_phase_loop() {
    let settings = Settings {
        phases: Phases::One,
        faults: "ko=0.1,drop=0.05,garbage=0.05"
            .parse()
            .expect("a valid fault spec"),
        ..quick_settings()
    };
    assert_model_matches_the_run(&settings, Dispatch::SinglePhase);
}
