//! Tests of the quoted-number check: tagged numbers against their sources.
use super::scan::numbers;
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
                At 5 ms<!-- input -->, 400 items, `--items 1,836`, {{#include figures/f.md:throughput}}.\n\
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
    // A percentage or milliseconds may be a setting, which says so.
    assert!(check_page("`--faults nak=0.1` is 10%, at 5 ms<!-- input -->.\n", read).is_empty());
}

#[test]
fn numbers_are_read_with_their_commas_points_and_percent() {
    let got: Vec<String> = numbers("1,836 and 0.94, 94%; 5ms v2 end.")
        .into_iter()
        .map(|(n, ..)| n)
        .collect();
    assert_eq!(got, ["1,836", "0.94", "94%"]);
}

#[test]
fn every_unit_of_measurement_names_its_source_or_is_an_input() {
    for (page, quoted) in [
        ("An item took 15.0 ms on average.\n", "15.0 ms"),
        ("The efficiency reached 93.4% in one run.\n", "93.4%"),
        ("The future is 848 bytes.\n", "848 bytes"),
        ("A peak of 90 MiB.\n", "90 MiB"),
        ("It made 404 `epoll_wait` calls.\n", "404 calls"),
    ] {
        let problems = check_page(page, read);
        assert_eq!(problems.len(), 1, "{page}: {problems:?}");
        assert_eq!(problems[0].line, 1);
        assert!(problems[0].what.starts_with(quoted), "{page}: {problems:?}");
    }
    // Inputs: in code, or tagged; the tag speaks for the numbers before it.
    for page in [
        "Against the 5 ms<!-- input --> server, 10% of lines<!-- input: the fault rate -->.\n",
        "Run it with `--latency 5ms --faults nak=0.1`.\n",
        "Version 0.1, chapter 8, 400 items, 20 connections.\n",
        "<figure><object aria-label=\"20 wrappers, 5 ms\">20 wrappers, 5 ms</object></figure>\n",
        "A unit glued to a longer word is not one: 5 msgs.\n",
    ] {
        assert_eq!(check_page(page, read), vec![], "{page}");
    }
    // An input tag does not cover a measurement that follows it.
    let after = "At 5 ms<!-- input --> it took 15.0 ms.\n";
    assert_eq!(check_page(after, read).len(), 1);
}

#[test]
fn two_pages_quoting_one_source_must_both_agree_with_it() {
    let src = std::env::temp_dir().join(format!("quoted-{}", std::process::id()));
    let figures = src.join(FIGURES);
    std::fs::create_dir_all(&figures).expect("a scratch book");
    std::fs::write(figures.join("f.md"), FIGURE).expect("a figure");
    std::fs::write(
        src.join("ch01.md"),
        "It did 1,836<!-- from f:throughput --> items/s.\n",
    )
    .expect("a page");
    std::fs::write(
        src.join("ch02.md"),
        "Chapter 1 did\n1,863<!-- from f:throughput --> items/s, and 12 ms.\n",
    )
    .expect("a page");
    let problems = check(&src).expect("a readable book");
    std::fs::remove_dir_all(&src).ok();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].starts_with("ch02.md:2: the number before <!-- from f:throughput --> is 1,863"),
        "{problems:?}"
    );
    assert!(
        problems[1].starts_with("ch02.md:2: 12 ms is a measurement typed without its source"),
        "{problems:?}"
    );
}
