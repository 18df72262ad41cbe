//! Tests of the terms check: a term used before its chapter, linked or not.
use super::*;
use anyhow::Result;

const SUMMARY: &str = "# Summary\n\n[Introduction](introduction.md)\n\n\
    - [Round-robin](ch03-roundrobin.md)\n- [Futures](ch08-futures.md)\n\
    - [Racing](racing.md)\n\n---\n\n[Glossary](glossary.md)\n";

const GLOSSARY_PAGE: &str = "# Glossary\n\nIntro text.\n\n\
    <a id=\"floor\"></a>**Floor, × floor** (the racing chapter). The least a client does.\n\n\
    **Future, `poll` and waker** (chapter 8). A value that can be polled.\n\n\
    **Item.** One entry of the work list.\n";

fn pages(ch03: &str) -> Vec<(String, String)> {
    [
        ("introduction.md", "An item is one entry.\n"),
        ("ch03-roundrobin.md", ch03),
        (
            "ch08-futures.md",
            "A future is polled; its waker wakes it.\n",
        ),
        ("racing.md", "The floor is the least.\n"),
        ("glossary.md", GLOSSARY_PAGE),
    ]
    .map(|(n, t)| (n.to_owned(), t.to_owned()))
    .to_vec()
}

fn entries() -> Vec<Entry> {
    glossary(GLOSSARY_PAGE, &reading_order(SUMMARY)).expect("a valid glossary")
}

#[test]
fn the_glossary_is_read_into_terms_and_their_pages() {
    let order = reading_order(SUMMARY);
    assert_eq!(order[0], "introduction.md");
    assert_eq!(order.last().map(String::as_str), Some("glossary.md"));
    let entries = entries();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0].terms, ["floor", "× floor"]);
    assert_eq!(entries[0].page, "racing.md");
    assert_eq!(entries[1].terms, ["future", "poll", "waker"]);
    assert_eq!(entries[1].page, "ch08-futures.md");
    assert_eq!(entries[2].page, "introduction.md");
}

#[test]
fn a_term_used_before_its_chapter_fails_and_a_link_makes_it_pass() {
    let early = "Each slot waits, as a waker would.\n\nThen the waker again.\n";
    let problems = check(&entries(), &pages(early));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("ch03-roundrobin.md:1: \"waker\""),
        "{problems:?}"
    );
    let linked =
        "Each slot waits, as a [waker](glossary.md#waker) would.\n\nThen the waker again.\n";
    assert_eq!(check(&entries(), &pages(linked)), Vec::<String>::new());
    let to_chapter = "As a [waker](ch08-futures.md#wakers) would.\n";
    assert_eq!(check(&entries(), &pages(to_chapter)), Vec::<String>::new());
    // A link elsewhere is no way to the definition.
    let elsewhere = "As a [waker](ch01-blocking.md) would.\n";
    assert_eq!(check(&entries(), &pages(elsewhere)).len(), 1);
}

#[test]
fn code_comments_and_other_words_are_not_uses() {
    let quiet = "```rust\nlet waker = cx.waker();\n```\n\
                 A `poll` in code, <!-- a floor in a comment -->, \
                 an epoll, a subfloor, the flooring, a [link](floor.md).\n\
                 {{#include figures/x.md:floor}}\n";
    assert_eq!(check(&entries(), &pages(quiet)), Vec::<String>::new());
    let plural = "Two floors.\n";
    assert_eq!(check(&entries(), &pages(plural)).len(), 1);
}

#[test]
fn a_place_that_is_no_page_is_an_error() {
    let bad = "**Ring** (chapter 12). A queue.\n";
    assert!(glossary(bad, &reading_order(SUMMARY)).is_err());
}

#[test]
fn the_book_passes_and_fails_when_chapter_3_uses_waker_unlinked() -> Result<()> {
    let src = crate::cargo::workspace_root().join("book/src");
    let (entries, mut pages) = load(&src)?;
    assert_eq!(check(&entries, &pages), Vec::<String>::new());
    let ch03 = pages
        .iter_mut()
        .find(|(name, _)| name == "ch03-roundrobin.md")
        .expect("chapter 3 is in SUMMARY.md");
    let linked = "[waker](glossary.md#future)";
    assert!(ch03.1.contains(linked), "chapter 3 links its first waker");
    ch03.1 = ch03.1.replacen(linked, "waker", 1);
    let problems = check(&entries, &pages);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("ch03-roundrobin.md:")
            && problems[0].contains("\"waker\" is used before ch08-futures.md"),
        "{problems:?}"
    );
    Ok(())
}
