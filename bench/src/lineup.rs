//! Who races: the contenders `--only` names, or all of them, each asked
//! before the first lap whether it can run on this machine.
//!
//! A race is long, and a contender that cannot run would stop it half-way:
//! 08-uring needs `io_uring_setup`, which a sysctl or a container's
//! seccomp filter may forbid. So every contender's [`Stage::available`] is
//! asked first:
//!
//! - a contender named by `--only` that cannot run is a usage error, said
//!   before anything starts: the user asked for that row, and a table
//!   without it would not answer their question;
//! - one that is only there because the default race runs everything is
//!   left out, with a note that says why and goes into the table's legend
//!   and `race.json`: on a machine without io_uring, the other thirteen
//!   rows are still worth an hour.
//!
//! A name given twice is refused as well: its two laps would share one
//! server, and the row would be drawn twice.
//!
//! [`Stage::available`]: testbed::stage::Stage::available

use crate::contenders::{self, CONTENDERS, Contender};

/// The contenders of a race, in the order they run.
#[derive(Debug)]
pub struct Lineup {
    /// Those that race.
    pub contenders: Vec<&'static Contender>,
    /// One note per contender of the default race that cannot run here,
    /// saying why (`uring: io_uring is not allowed here ...`).
    pub left_out: Vec<String>,
}

/// The lineup for `--only` (empty: every contender), each contender asked
/// `available` first; `Err` is the usage error's one line.
pub fn choose(
    only: &[String],
    available: impl Fn(&Contender) -> Result<(), String>,
) -> Result<Lineup, String> {
    if only.is_empty() {
        let mut lineup = Lineup {
            contenders: Vec::new(),
            left_out: Vec::new(),
        };
        for contender in CONTENDERS {
            match available(contender) {
                Ok(()) => lineup.contenders.push(contender),
                Err(why) => lineup
                    .left_out
                    .push(format!("{} is not in this race: {why}", contender.name)),
            }
        }
        return Ok(lineup);
    }
    let mut contenders: Vec<&'static Contender> = Vec::new();
    for name in only {
        let contender = contenders::find(name).ok_or_else(|| {
            let names: Vec<&str> = CONTENDERS.iter().map(|c| c.name).collect();
            format!(
                "--only: no contender '{name}' (known: {})",
                names.join(", ")
            )
        })?;
        if contenders.iter().any(|c| c.name == contender.name) {
            return Err(format!(
                "--only: '{name}' is named twice; name each contender once"
            ));
        }
        available(contender).map_err(|why| {
            format!("--only: {name} cannot run here: {why}; leave it out of --only")
        })?;
        contenders.push(contender);
    }
    Ok(Lineup {
        contenders,
        left_out: Vec::new(),
    })
}

/// What the race asks of each contender: its stage's own answer.
pub fn available(contender: &Contender) -> Result<(), String> {
    (contender.make)().available()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(names: &[&str]) -> Vec<String> {
        names.iter().map(|&n| n.to_owned()).collect()
    }

    /// A machine where io_uring is forbidden.
    fn no_uring(contender: &Contender) -> Result<(), String> {
        if contender.name == "uring" {
            Err("io_uring is not allowed here".into())
        } else {
            Ok(())
        }
    }

    #[test]
    fn the_default_race_leaves_out_what_cannot_run_and_says_why() {
        let lineup = choose(&[], no_uring).expect("a lineup");
        assert_eq!(lineup.contenders.len(), CONTENDERS.len() - 1);
        assert!(lineup.contenders.iter().all(|c| c.name != "uring"));
        assert_eq!(
            lineup.left_out,
            ["uring is not in this race: io_uring is not allowed here"]
        );
    }

    #[test]
    fn a_contender_asked_for_that_cannot_run_is_refused() {
        let why = choose(&only(&["sync", "uring"]), no_uring).expect_err("refused");
        assert!(why.contains("uring cannot run here: io_uring"), "{why}");
    }

    #[test]
    fn a_name_given_twice_is_refused() {
        let why = choose(&only(&["sync", "tokio", "sync"]), |_| Ok(())).expect_err("refused");
        assert!(why.contains("'sync' is named twice"), "{why}");
    }

    #[test]
    fn names_run_in_the_order_given() {
        let lineup = choose(&only(&["tokio", "sync"]), |_| Ok(())).expect("a lineup");
        let names: Vec<&str> = lineup.contenders.iter().map(|c| c.name).collect();
        assert_eq!(names, ["tokio", "sync"]);
        assert!(lineup.left_out.is_empty());
    }
}
