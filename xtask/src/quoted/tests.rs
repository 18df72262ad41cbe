//! Tests of the quoted-number check: tagged numbers against their sources.
use super::*;

const FIGURE: &str = "<!-- FIGURE-DATA x\nANCHOR: throughput\n1,836\nANCHOR_END: throughput\n\
    ANCHOR: efficiency\n94%\nANCHOR_END: efficiency\nANCHOR: p99\n11.9 ms\nANCHOR_END: p99\n-->\n\n\
    | stage | items/s | CPU µs/item, 0 ms |\n|---|---:|---:|\n| pool | 8,030 | 48.2 |\n";

fn read(name: &str) -> Option<String> {
    (name == "f").then(|| FIGURE.to_owned())
}

#[test]
fn a_tagged_number_must_be_its_source_s() {
    let good = "1,836<!-- from f:throughput --> items/s at 94%<!-- from f:efficiency -->, p99 11.9 ms<!-- from f:p99 -->; \
                the pool spent 48.2<!-- from f: pool | CPU µs/item, 0 ms --> µs.\n";
    assert_eq!(check_page(good, read), vec![]);
    for (from, to) in [("94%", "96%"), ("11.9", "12.9"), ("48.2", "38.2")] {
        let edited = good.replace(from, to);
        let problems = check_page(&edited, read);
        assert_eq!(problems.len(), 1, "{from} → {to}: {problems:?}");
    }
}

#[test]
fn a_source_that_does_not_exist_is_reported() {
    for tag in [
        "<!-- from g:throughput -->",
        "<!-- from f:thruput -->",
        "<!-- from f: fork | items/s -->",
        "<!-- from f -->",
    ] {
        assert_eq!(check_page(&format!("1,836{tag}\n"), read).len(), 1, "{tag}");
    }
}

#[test]
fn untagged_copies_of_a_shown_figure_are_caught_and_nothing_else() {
    let page = "<object data=\"figures/f.svg\"></object>\n\
                It did 1,836 items/s.\n\
                | a table of its own | 1,836 |\n\
                Other runs gave 94%, 95% and 1,836<!-- from elsewhere: three runs -->.\n\
                ```\n1,836 in a code block is output, not prose\n```\n\
                At 5 ms, 400 items, `--items 1,836`, {{#include figures/f.md:throughput}}.\n\
                1,836<!-- from f:throughput --> tagged.\n";
    let problems = check_page(page, read);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].line, 2);
    // A page that does not show the figure may say the same number.
    assert!(check_page("It waited 1,836 times.\n", read).is_empty());
}

#[test]
fn a_throughput_or_a_cpu_time_always_names_its_source() {
    for page in ["It did 2,883 items/s.\n", "It spent 145 µs per item.\n"] {
        assert_eq!(check_page(page, read).len(), 1, "{page}");
    }
    let said = "It did 2,883 items/s and 145 µs<!-- from elsewhere: a quiet race -->.\n";
    assert!(check_page(said, read).is_empty());
    // A percentage or milliseconds may be a setting.
    assert!(check_page("--faults nak=0.1 is 10%, at 5 ms.\n", read).is_empty());
}

#[test]
fn numbers_are_read_with_their_commas_points_and_percent() {
    let got: Vec<String> = numbers("1,836 and 0.94, 94%; 5ms v2 end.")
        .into_iter()
        .map(|(n, ..)| n)
        .collect();
    assert_eq!(got, ["1,836", "0.94", "94%"]);
}
