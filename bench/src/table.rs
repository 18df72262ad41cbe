//! The race as a table: Markdown for the book and the README, aligned text
//! for a terminal. Both come from the same cells, so they cannot disagree.
//!
//! Not here: the runs ([`crate::race`]) or the chart ([`crate::chart`]).

use testbed::svg::thousands;

use crate::race::{Race, Row};
use crate::run::Lap;

/// The column headers.
const HEADERS: [&str; 13] = [
    "stage",
    "items/s",
    "efficiency",
    "p99 ms",
    "calls/item",
    "conns",
    "DB conns",
    "lost",
    "wrong",
    "items/s, 0 ms",
    "CPU µs/item, 0 ms",
    "× floor",
    "calls/item, 0 ms",
];

/// Columns holding numbers, aligned right.
const NUMERIC: [bool; 13] = [
    false, true, true, true, true, true, true, true, true, true, true, true, true,
];

/// The cells of one row.
fn cells(row: &Row) -> [String; 13] {
    let ladder = &row.latency_bound.report;
    let zero = &row.overhead;
    [
        ladder.stage.clone(),
        thousands(ladder.throughput),
        ladder
            .efficiency
            .map_or("n/a".to_owned(), |e| format!("{:.0}%", e * 100.0)),
        format!("{:.1}", ladder.latency_ms.p99),
        calls(&row.latency_bound),
        ladder
            .server_peak_conns
            .map_or("?".to_owned(), |n| n.to_string()),
        ladder.db_connections.to_string(),
        (ladder.lost + zero.report.lost).to_string(),
        (ladder.wrong + zero.report.wrong).to_string(),
        thousands(zero.report.throughput),
        format!("{:.1}", zero.client_cpu_us_per_item),
        row.cpu_x_floor
            .map_or("n/a".to_owned(), |x| format!("{x:.2}")),
        calls(zero),
    ]
}

/// A lap's system calls per item, or nothing when they were not counted.
fn calls(lap: &Lap) -> String {
    lap.syscalls_per_item
        .map_or(String::new(), |n| format!("{n:.2}"))
}

/// The caption that says what the columns measured.
pub fn legend(race: &Race) -> String {
    let mut legend = format!(
        "Columns 2 to 7: {}; `conns` is the most connections the server saw at \
         once. Columns 10 to 13: {}; CPU is the client's user + system time \
         per item (its process and its children, not the server's), and × floor \
         that CPU as a multiple of the `floor` row's, the least a client can \
         do for this workload. Calls/item are the system calls the kernel \
         counted per item in one more lap of each, in a process of its own \
         ({}). Lost and wrong count both runs.",
        race.workloads.latency_bound.describe(),
        race.workloads.overhead.describe(),
        counted_by(race)
    );
    legend.push_str(&notes(race));
    legend
}

/// What the legend adds after its columns: the steal, the contenders
/// left out, a race stopped early.
fn notes(race: &Race) -> String {
    let mut legend = String::new();
    if let Some(steal) = race.steal {
        legend.push_str(&format!(
            " The hypervisor took {:.0}% of the machine's CPU time (steal) \
             while the race ran.",
            steal * 100.0
        ));
    }
    for note in &race.left_out {
        legend.push_str(&format!(" Left out: {note}."));
    }
    if let Some(signal) = &race.interrupted {
        legend.push_str(&format!(
            " Stopped early by {signal}: each row is the median of the rounds \
             its contender finished."
        ));
    }
    legend
}

/// Which tool counted the calls, as the legend says it.
fn counted_by(race: &Race) -> String {
    match race.syscall_counter {
        Some(counter) => format!("counted by `{}`", counter.command()),
        None if race.interrupted.is_some() => "not counted: the race was stopped".to_owned(),
        None if race
            .rows
            .iter()
            .any(|row| row.overhead.syscalls_per_item.is_some()) =>
        {
            "by a tool this race.json does not name: it was saved before it recorded one".to_owned()
        }
        None => "empty: no tool could count them here".to_owned(),
    }
}

/// The book's three tables, by column: the latency-bound run, the
/// zero-latency run, and what both held and lost. Thirteen columns do not
/// fit a book's text column; five do, and each table shares the stage
/// column, so a row is read across one table at a time.
const BOOK_TABLES: [[usize; 5]; 3] = [[0, 1, 2, 3, 4], [0, 9, 10, 11, 12], [0, 5, 6, 7, 8]];

/// The command, then the three tables, each under the sentence that says
/// what it measured: what the book includes.
pub fn markdown(race: &Race) -> String {
    let mut out = format!(
        "<p class=\"figure-command\"><code>{}</code></p>\n",
        race.command
    );
    let captions = [
        format!(
            "Latency-bound: {}. Calls/item are the system calls the kernel \
             counted per item in one more lap of each, in a process of its \
             own ({}).",
            race.workloads.latency_bound.describe(),
            counted_by(race)
        ),
        format!(
            "At zero latency: {}. CPU is the client's user + system time per \
             item (its process and its children, not the server's), and × \
             floor that CPU as a multiple of the `floor` row's, the least a \
             client can do for this workload; calls/item counted as above.",
            race.workloads.overhead.describe()
        ),
        "What each held, and what it lost: `conns` is the most connections \
         the server saw at once in the latency-bound run, `DB conns` the \
         database connections that recorded outcomes; lost and wrong count \
         both runs."
            .to_owned(),
    ];
    let rows: Vec<[String; 13]> = race.rows.iter().map(cells).collect();
    for (columns, caption) in BOOK_TABLES.iter().zip(&captions) {
        out.push_str(&format!("\n{caption}\n\n"));
        let pick = |all: &[&str]| -> String {
            columns
                .iter()
                .map(|&c| all[c])
                .collect::<Vec<_>>()
                .join(" | ")
        };
        out.push_str(&format!("| {} |\n", pick(&HEADERS)));
        let rule: Vec<&str> = columns
            .iter()
            .map(|&c| if NUMERIC[c] { "---:" } else { "---" })
            .collect();
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for row in &rows {
            let row: Vec<&str> = row.iter().map(String::as_str).collect();
            out.push_str(&format!("| {} |\n", pick(&row)));
        }
    }
    let notes = notes(race);
    if !notes.is_empty() {
        out.push_str(&format!("\n{}\n", notes.trim_start()));
    }
    out
}

/// Where each connection's time per item went in the latency-bound run
/// ([`Row::time_split`]), as a Markdown table with its command and legend;
/// rows without the server's figures are left out.
pub fn split_markdown(race: &Race) -> String {
    let workload = &race.workloads.latency_bound;
    let mut out = format!(
        "<p class=\"figure-command\"><code>{}</code></p>\n\n\
         | stage | ms per item and connection | service | overshoot | client | client share |\n\
         |---|---:|---:|---:|---:|---:|\n",
        race.command
    );
    for row in &race.rows {
        let Some(split) = row.time_split(workload) else {
            continue;
        };
        let total = split.total_ms();
        out.push_str(&format!(
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0}% |\n",
            row.latency_bound.report.stage,
            total,
            split.service_ms,
            split.overshoot_ms,
            split.client_ms,
            split.client_ms / total * 100.0
        ));
    }
    out.push_str(&format!(
        "\n{}: a connection's time per item is `conns / items per second`. \
         Service is what the workload asks ({} × the nominal service time); \
         overshoot is the server's sleeps waking late ({} × the mean applied \
         service time, from the server's own statistics over every round, \
         minus the nominal one); client is the rest: the client's work \
         between a reply and the next request, loopback, waiting for a core, \
         and the start and end of the run.\n",
        workload.describe(),
        workload.phases.count(),
        workload.phases.count()
    ));
    out
}

/// The table in aligned columns, for a terminal.
pub fn text(race: &Race) -> String {
    let rows: Vec<[String; 13]> = race.rows.iter().map(cells).collect();
    let width = |col: usize| {
        rows.iter()
            .map(|r| r[col].chars().count())
            .chain([HEADERS[col].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..HEADERS.len()).map(width).collect();
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let pad = widths[i].saturating_sub(cell.chars().count());
                if NUMERIC[i] {
                    format!("{}{cell}", " ".repeat(pad))
                } else {
                    format!("{cell}{}", " ".repeat(pad))
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let mut out = line(HEADERS.to_vec());
    out.push('\n');
    for row in &rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race::Workloads;
    use crate::syscalls::Counter;

    fn race(counter: Option<Counter>) -> Race {
        Race {
            rows: Vec::new(),
            workloads: Workloads::quick(),
            command: "race --quick".into(),
            steal: None,
            syscall_counter: counter,
            left_out: Vec::new(),
            interrupted: None,
        }
    }

    #[test]
    fn the_book_shows_every_column_in_tables_of_five() {
        let md = markdown(&race(None));
        let headers: Vec<&str> = md.lines().filter(|l| l.starts_with("| stage |")).collect();
        assert_eq!(headers.len(), 3, "{md}");
        let mut shown: Vec<&str> = Vec::new();
        for header in headers {
            let columns: Vec<&str> = header.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(columns.len(), 5, "{header}");
            shown.extend(&columns[1..]);
        }
        shown.sort_unstable();
        let mut all = HEADERS[1..].to_vec();
        all.sort_unstable();
        assert_eq!(shown, all, "each column once, the stage in every table");
    }

    #[test]
    fn the_legend_names_the_tool_that_counted() {
        // Once it said `perf stat` whoever counted, and strace's figures
        // are not perf's.
        let strace = legend(&race(Some(Counter::Strace)));
        assert!(strace.contains("counted by `strace -c -f`"), "{strace}");
        assert!(!strace.contains("perf"), "{strace}");
        let perf = legend(&race(Some(Counter::Perf)));
        assert!(perf.contains("counted by `perf stat -e raw_syscalls:sys_enter`"));
        let none = legend(&race(None));
        assert!(none.contains("no tool could count") && !none.contains("perf"));
    }
}
