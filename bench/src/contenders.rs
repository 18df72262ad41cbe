//! The registry: every contender of the race and the benches, in one list.
//!
//! A contender is a rung of the ladder (or one variant of it, like each of
//! 04-select's backends) or a reference a user would reach for instead.
//! The race runs all of them; each criterion group runs the ones that
//! joined it. Nothing else in this crate names a stage.
//!
//! # Adding a rung
//!
//! 1. add its package to `bench/Cargo.toml` (`select.workspace = true`);
//! 2. add one line to [`CONTENDERS`], in ladder order: a name, the groups
//!    it joins, and how to make the stage, e.g.
//!    `Contender::rung("select-epoll", &[LatencyBound, Uneven, Overhead, Scale], || Box::new(select::Select { backend: select::Backend::Epoll }))`.
//!
//! A stage with variants (04-select's three system calls) gets a line per
//! variant, named `package-variant`. The race runs every line; a line with
//! no groups (`&[]`) is raced but not benchmarked.
//!
//! The groups a contender joins say which questions it answers: a stage
//! without concurrency (01-sync) has nothing to show at 10 or 100
//! connections, and only the stages that wait on many connections at once
//! are asked to hold thousands ([`Group::Scale`]). A stage that forks is
//! run in a process of its own automatically ([`crate::run`]).
//!
//! # Examples
//!
//! Every contender is a [`Stage`], run by the harness like any stage
//! binary: here each one, rungs and references, on ten items.
//!
//! ```
//! use bench::contenders::CONTENDERS;
//! use testbed::cli::Settings;
//! use testbed::harness::execute;
//!
//! let settings = Settings {
//!     items: 10,
//!     conns: 4,
//!     latency: "1ms".parse().expect("a latency"),
//!     ..Settings::default()
//! };
//! for contender in CONTENDERS {
//!     let stage = (contender.make)();
//!     let report = execute(stage.as_ref(), &settings)?.report;
//!     assert_eq!((report.ok, report.lost), (10, 0), "{}", contender.name);
//! }
//! # Ok::<(), testbed::harness::HarnessError>(())
//! ```

use testbed::stage::Stage;

use crate::floor::Floor;
use crate::tasks::Tasks;
use crate::threads::Threads;

/// The questions the criterion benches ask, one group each
/// (`benches/ladder.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Fixed 2 ms, two-phase, at concurrency 1, 10 and 100.
    LatencyBound,
    /// Bimodal latency: who suffers from one slow reply.
    Uneven,
    /// Zero latency: the wall time and the client's CPU per item.
    Overhead,
    /// Thousands of connections at once.
    Scale,
}

use Group::{LatencyBound, Overhead, Scale, Uneven};

/// A rung of the ladder, or a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// One of the stages, 01-sync to 08-uring.
    Rung,
    /// What a user would pick instead (threads, tokio).
    Reference,
}

/// One entry of the registry.
#[derive(Clone, Copy)]
pub struct Contender {
    /// Its name in the race's rows and in benchmark ids: the package name,
    /// plus the variant when a stage has several (`select-epoll`).
    pub name: &'static str,
    /// Rung or reference.
    pub kind: Kind,
    /// The criterion groups it joins (the race runs every contender).
    pub groups: &'static [Group],
    /// One request at a time whatever `--conns` says (01-sync): it joins
    /// [`Group::LatencyBound`] at concurrency 1 only.
    pub sequential: bool,
    /// Makes the stage, ready to run.
    pub make: fn() -> Box<dyn Stage>,
}

impl Contender {
    /// A rung of the ladder.
    pub const fn rung(
        name: &'static str,
        groups: &'static [Group],
        make: fn() -> Box<dyn Stage>,
    ) -> Contender {
        Contender::new(Kind::Rung, name, groups, make)
    }

    /// A reference.
    pub const fn reference(
        name: &'static str,
        groups: &'static [Group],
        make: fn() -> Box<dyn Stage>,
    ) -> Contender {
        Contender::new(Kind::Reference, name, groups, make)
    }

    const fn new(
        kind: Kind,
        name: &'static str,
        groups: &'static [Group],
        make: fn() -> Box<dyn Stage>,
    ) -> Contender {
        Contender {
            name,
            kind,
            groups,
            sequential: false,
            make,
        }
    }

    /// Marks a contender that has no concurrency to vary.
    pub const fn sequential(mut self) -> Contender {
        self.sequential = true;
        self
    }

    /// Does it join `group`?
    pub fn joins(&self, group: Group) -> bool {
        self.groups.contains(&group)
    }
}

impl std::fmt::Debug for Contender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contender")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("groups", &self.groups)
            .field("sequential", &self.sequential)
            .finish_non_exhaustive()
    }
}

// ANCHOR: registry
/// Every contender, rungs in ladder order, then the references.
pub const CONTENDERS: &[Contender] = &[
    Contender::rung("sync", &[LatencyBound, Overhead], || {
        Box::new(sync::Blocking::default())
    })
    .sequential(),
    Contender::rung("fork", &[LatencyBound, Overhead], || {
        Box::new(fork::Forked::processes())
    }),
    Contender::rung("roundrobin", &[LatencyBound, Uneven, Overhead], || {
        Box::new(roundrobin::RoundRobin::default())
    }),
    Contender::rung("select-select", &[], || {
        Box::new(select::Select {
            backend: select::Backend::Select,
        })
    }),
    Contender::rung("select-poll", &[], || {
        Box::new(select::Select {
            backend: select::Backend::Poll,
        })
    }),
    Contender::rung(
        "select-epoll",
        &[LatencyBound, Uneven, Overhead, Scale],
        || {
            Box::new(select::Select {
                backend: select::Backend::Epoll,
            })
        },
    ),
    Contender::rung("pool", &[LatencyBound, Uneven, Overhead, Scale], || {
        Box::new(pool::TimedPool::default())
    }),
    Contender::rung(
        "scheduler",
        &[LatencyBound, Uneven, Overhead, Scale],
        || Box::new(scheduler::Fibers::default()),
    ),
    Contender::rung("executor", &[LatencyBound, Uneven, Overhead, Scale], || {
        Box::new(executor::Futures::default())
    }),
    Contender::rung("uring", &[LatencyBound, Uneven, Overhead, Scale], || {
        Box::new(uring::Uring)
    }),
    Contender::reference("threads", &[LatencyBound, Uneven, Overhead, Scale], || {
        Box::new(Threads)
    }),
    Contender::reference("tokio", &[LatencyBound, Uneven, Overhead, Scale], || {
        Box::new(Tasks::multi_thread())
    }),
    Contender::reference("tokio-ct", &[LatencyBound, Overhead], || {
        Box::new(Tasks::current_thread())
    }),
    // The least a client can do: raced, never benchmarked, and the row
    // every other row's CPU per item is divided by.
    Contender::reference("floor", &[], || Box::new(Floor)),
];
// ANCHOR_END: registry

/// The contender called `name`.
///
/// ```
/// use bench::contenders::{Kind, find};
///
/// let tokio = find("tokio").expect("a reference");
/// assert_eq!((tokio.kind, (tokio.make)().name()), (Kind::Reference, "tokio"));
/// assert!(find("select-epoll").is_some_and(|c| c.kind == Kind::Rung));
/// assert!(find("select").is_none(), "a stage with variants has a line per variant");
/// ```
pub fn find(name: &str) -> Option<&'static Contender> {
    CONTENDERS.iter().find(|c| c.name == name)
}

/// The contenders that join `group`, in registry order.
pub fn in_group(group: Group) -> impl Iterator<Item = &'static Contender> {
    CONTENDERS.iter().filter(move |c| c.joins(group))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (i, contender) in CONTENDERS.iter().enumerate() {
            assert!(
                CONTENDERS[..i].iter().all(|c| c.name != contender.name),
                "{} twice",
                contender.name
            );
            assert_eq!(find(contender.name).map(|c| c.name), Some(contender.name));
        }
    }

    #[test]
    fn a_contender_is_named_after_its_stage() {
        // The race's name is the package name, or the package name and a
        // variant: a reader must recognise the stage in the table.
        for contender in CONTENDERS {
            let stage = (contender.make)().name();
            assert!(
                contender.name == stage || contender.name.starts_with(&format!("{stage}-")),
                "{} runs stage {stage}",
                contender.name
            );
        }
    }

    #[test]
    fn both_references_are_in_every_comparison() {
        for group in [LatencyBound, Overhead] {
            let names: Vec<_> = in_group(group).map(|c| c.name).collect();
            for reference in ["threads", "tokio", "tokio-ct"] {
                assert!(names.contains(&reference), "{group:?} lacks {reference}");
            }
        }
    }
}
