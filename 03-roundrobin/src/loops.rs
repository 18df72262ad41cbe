//! The loops: visit the wrappers in turn, dispose of their backlog, give
//! them the next item, then drain what is left.
//!
//! The source article has two loops and two drains:
//!
//! - the **single-phase loop**: take the next wrapper in round-robin order,
//!   `dispose` once (block for its reply, if it has one), `start` the item.
//!   Correct when one `dispose` always finishes a request;
//! - the **multi-phase loop**: a request may need several `dispose`s, so
//!   keep taking the next wrapper, disposing, and *skipping* any that is
//!   still working, until one is free;
//! - the source article's **drain** finishes the wrappers one after another
//!   ([`Drain::InOrder`]). With two phases that is slow: wrapper 2's `BODY`
//!   is not even sent until wrapper 1 has its final answer, so the drain
//!   takes one reply time *per wrapper*. [`Drain::RoundRobin`] keeps going
//!   round instead, one phase per wrapper per turn, and takes one reply time
//!   per phase. Chapter 3 measures both.
//!
//! # What round-robin cannot do
//!
//! The order of visits never depends on time: the loop blocks on the next
//! wrapper in turn even when another one's reply has long arrived. With even
//! reply times that costs little (the next in turn is also the next due).
//! With uneven ones, the whole loop waits behind one slow reply while fast
//! replies sit unread: head-of-line blocking. Stage 4 waits on all the
//! connections at once instead.
//!
//! Not here: what `dispose` and `start` do (`wrapper.rs`), or the fleet
//! they act on (`fleet.rs`).

use testbed::protocol::Phases;
use testbed::workload::Item;

use crate::fleet::{Fleet, LoopError};
use crate::wrapper::WrapperId;

/// Which loop hands out the items (`--loop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// One `dispose` per visit, then `start`: the source article's first loop.
    SinglePhase,
    /// `dispose` and skip wrappers still working: the source article's second loop.
    MultiPhase,
}

impl Dispatch {
    /// The loop the source article pairs with each request shape.
    pub fn for_phases(phases: Phases) -> Dispatch {
        match phases {
            Phases::One => Dispatch::SinglePhase,
            Phases::Two => Dispatch::MultiPhase,
        }
    }

    /// The name used in flags and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Dispatch::SinglePhase => "single",
            Dispatch::MultiPhase => "multi",
        }
    }
}

/// How the requests still pending after the last item are finished
/// (`--drain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Drain {
    /// Keep going round: one `dispose` per working wrapper per turn.
    #[default]
    RoundRobin,
    /// The source article's: each wrapper to the end of its request, one after another.
    InOrder,
}

impl Drain {
    /// The name used in flags and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Drain::RoundRobin => "round-robin",
            Drain::InOrder => "in-order",
        }
    }
}

/// Whose turn it is: the source article's `$conns[$cid++ % $NTASK]`.
#[derive(Debug, Clone)]
pub struct Cursor {
    next: usize,
    count: usize,
}

impl Cursor {
    /// A cursor over `count` wrappers, starting at wrapper 0.
    ///
    /// # Panics
    ///
    /// If `count` is 0: there would be no one to take a turn.
    pub fn new(count: usize) -> Cursor {
        assert!(count > 0, "round-robin needs at least one wrapper");
        Cursor { next: 0, count }
    }

    /// The wrapper whose turn it is; the turn then passes to the next one.
    pub fn next_wrapper(&mut self) -> WrapperId {
        let w = WrapperId(self.next);
        self.next = (self.next + 1) % self.count;
        w
    }
}

/// Hands out every item with `dispatch`, then finishes what is pending
/// with `drain`. Every item is recorded once, through the fleet's callbacks.
pub fn run(
    fleet: &mut impl Fleet,
    items: &[Item],
    dispatch: Dispatch,
    drain: Drain,
) -> Result<(), LoopError> {
    let mut cursor = Cursor::new(fleet.count());
    match dispatch {
        Dispatch::SinglePhase => single_phase(fleet, items, &mut cursor)?,
        Dispatch::MultiPhase => multi_phase(fleet, items, &mut cursor)?,
    }
    match drain {
        Drain::RoundRobin => drain_round_robin(fleet, &mut cursor),
        Drain::InOrder => drain_in_order(fleet),
    }
}

// ANCHOR: single_phase
/// The source article's first loop: each item goes to the next wrapper in turn, after
/// one `dispose` of that wrapper's previous request.
///
/// One `dispose` finishes a single-phase request. A two-phase request needs
/// two, so the second visit finds the wrapper still working and `start`
/// refuses ([`LoopError::Busy`]): the source article's "already in use".
pub fn single_phase(
    fleet: &mut impl Fleet,
    items: &[Item],
    cursor: &mut Cursor,
) -> Result<(), LoopError> {
    for item in items {
        let w = cursor.next_wrapper();
        fleet.dispose(w)?; // blocks until w's reply is in, if it has one
        fleet.start(w, item)?;
    }
    Ok(())
}
// ANCHOR_END: single_phase

// ANCHOR: multi_phase
/// The source article's second loop: visit wrappers in turn, `dispose` each, and give
/// the item to the first one that is free afterwards; a wrapper still
/// working (its request has another phase) is skipped until next time.
pub fn multi_phase(
    fleet: &mut impl Fleet,
    items: &[Item],
    cursor: &mut Cursor,
) -> Result<(), LoopError> {
    for item in items {
        let w = loop {
            let w = cursor.next_wrapper();
            fleet.dispose(w)?; // runs one phase: blocks for w's next reply
            if !fleet.is_working(w) {
                break w;
            }
        };
        fleet.start(w, item)?;
    }
    Ok(())
}
// ANCHOR_END: multi_phase

// ANCHOR: drain
/// Finishes the pending requests by going round from where the loop
/// stopped, one `dispose` per working wrapper per turn, until a whole turn
/// finds nothing to do. Every pending request advances one phase per turn.
pub fn drain_round_robin(fleet: &mut impl Fleet, cursor: &mut Cursor) -> Result<(), LoopError> {
    loop {
        let mut disposed = false;
        for _ in 0..fleet.count() {
            let w = cursor.next_wrapper();
            if fleet.is_working(w) {
                fleet.dispose(w)?;
                disposed = true;
            }
        }
        if !disposed {
            return Ok(());
        }
    }
}

/// The source article's drain, `map { $_->dispose() while $_->is_working() } @conns`:
/// each wrapper's request to its end, then the next wrapper's.
pub fn drain_in_order(fleet: &mut impl Fleet) -> Result<(), LoopError> {
    for w in (0..fleet.count()).map(WrapperId) {
        while fleet.is_working(w) {
            fleet.dispose(w)?;
        }
    }
    Ok(())
}
// ANCHOR_END: drain

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_goes_round() {
        let mut cursor = Cursor::new(3);
        let turns: Vec<usize> = (0..7).map(|_| cursor.next_wrapper().0).collect();
        assert_eq!(turns, [0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn each_shape_has_its_loop() {
        assert_eq!(Dispatch::for_phases(Phases::One), Dispatch::SinglePhase);
        assert_eq!(Dispatch::for_phases(Phases::Two), Dispatch::MultiPhase);
    }
}
