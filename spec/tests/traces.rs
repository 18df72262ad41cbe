//! The comparison of traces: order, unordered groups, lower bounds on
//! time, and the side-by-side print of a mismatch.

use std::time::Duration;

use runtime_spec::{Trace, any_order, at_least, check, ev, one_thread_order, side_by_side};

fn trace(events: &[(&str, u64)]) -> Trace {
    Trace {
        events: events
            .iter()
            .map(|(e, ms)| ((*e).to_owned(), Duration::from_millis(*ms)))
            .collect(),
    }
}

#[test]
fn order_and_bounds_are_checked() {
    let expect = vec![ev("a"), at_least("b", 10)];
    assert!(check(&expect, &trace(&[("a", 0), ("b", 12)]), false).is_ok());
    let early = check(&expect, &trace(&[("a", 0), ("b", 9)]), false).unwrap_err();
    assert!(early.contains("before its bound"), "{early}");
    let swapped = check(&expect, &trace(&[("b", 12), ("a", 13)]), false).unwrap_err();
    assert!(swapped.contains("`b` was not expected"), "{swapped}");
    let short = check(&expect, &trace(&[("a", 0)]), false).unwrap_err();
    assert!(short.contains("ends after 1"), "{short}");
    let long = check(&expect, &trace(&[("a", 0), ("b", 12), ("c", 13)]), false).unwrap_err();
    assert!(long.contains("unexpected event 3"), "{long}");
}

#[test]
fn unordered_groups_take_either_order_and_one_thread_order_relaxes_in_parallel() {
    let expect = vec![any_order(vec![ev("x"), ev("y")]), ev("z")];
    assert!(check(&expect, &trace(&[("y", 0), ("x", 0), ("z", 0)]), false).is_ok());
    let strict = vec![one_thread_order(vec![ev("x"), ev("y")])];
    let swapped = trace(&[("y", 0), ("x", 0)]);
    assert!(check(&strict, &swapped, false).is_err());
    assert!(check(&strict, &swapped, true).is_ok());
}

#[test]
fn a_mismatch_prints_both_traces_side_by_side() {
    let expect = vec![ev("b woke"), at_least("a woke", 20)];
    let text = side_by_side(&expect, &trace(&[("a woke", 5), ("b woke", 10)]), false);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("expected") && lines[0].contains("actual"),
        "{text}"
    );
    assert!(
        lines[1].starts_with('!')
            && lines[1].contains("b woke")
            && lines[1].contains("a woke @5 ms"),
        "{text}"
    );
    assert!(
        lines[2].contains("a woke (>= 20 ms)") && lines[2].contains("b woke @10 ms"),
        "{text}"
    );
}
