//! The wrappers and the one database connection: what the loops drive.
//!
//! The source article's loops work on `@conns` (the wrappers) and `$db` (the one
//! database connection). [`Fleet`] is those two together, seen through the
//! only operations a loop needs: visit wrapper `w` to `dispose` of its
//! backlog, ask whether it `is_working`, `start` an item on it. Two fleets
//! implement it:
//!
//! - [`Wrappers`], real connections and the real results database;
//! - `model::VirtualFleet`, the same operations in virtual time, which
//!   predicts a run without running it.
//!
//! The loops in `loops.rs` are written once, against the trait, so the
//! prediction and the run execute the very same loop.
//!
//! # Who owns the database connection?
//!
//! In the source article, every callback closes over `$db`: many closures, one
//! database handle, all able to use it. The direct Rust translation is
//! `Rc<RefCell<Store>>`, cloned into every callback. It would work (one
//! thread, and no callback runs inside another), but the `RefCell` would
//! check at run time something we know by construction, and a callback that
//! kept a borrow alive would panic rather than fail to compile.
//!
//! So here the callbacks do not hold the store: the fleet owns it, and
//! *lends* it to the one wrapper being disposed (`&mut Store`), which passes
//! it to the callback it calls. One owner, one borrower at a time, checked
//! by the compiler; and it says in the types what the source article says in prose:
//! one database connection, used by one request at a time.

use std::io::{Read, Write};
use std::time::Instant;

use testbed::conn::Conn;
use testbed::outcome::Failure;
use testbed::protocol::Phases;
use testbed::store::{Store, StoreError};
use testbed::turns::TurnLog;
use testbed::workload::Item;

use crate::wrapper::{Busy, Chain, Wrapper, WrapperId};

/// N wrappers and one database connection, as the loops see them.
pub trait Fleet {
    /// How many wrappers (`--conns`).
    fn count(&self) -> usize;

    /// Whether wrapper `w` still has a request pending.
    fn is_working(&self, w: WrapperId) -> bool;

    /// Blocks for wrapper `w`'s pending reply, if any, and handles it.
    fn dispose(&mut self, w: WrapperId) -> Result<(), LoopError>;

    /// Starts `item` on wrapper `w`; refused if `w` is working.
    fn start(&mut self, w: WrapperId, item: &Item) -> Result<(), LoopError>;
}

/// Why a loop stopped before its work was done.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// A loop started an item on a wrapper that was still working: the
    /// loop's own mistake (the single-phase loop with two-phase requests).
    #[error(transparent)]
    Busy(#[from] Busy),
    /// The results database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The real fleet: wrappers over sockets, recording into the results
/// database.
pub struct Wrappers<S> {
    wrappers: Vec<Wrapper<S>>,
    store: Store,
    /// The loop's turns: here a turn is one `dispose` that blocks on one
    /// wrapper's reply (the only wait this stage has), so each wake-up has
    /// one ready connection, whatever the others hold.
    turns: TurnLog,
}

impl<S: Read + Write + 'static> Wrappers<S> {
    /// `count` wrappers, not yet connected, each connecting with `connect`;
    /// `store` is the one database connection they all record through.
    pub fn new(
        count: usize,
        phases: Phases,
        chain: Chain,
        connect: impl Fn() -> Result<Conn<S>, Failure> + Clone + 'static,
        store: Store,
    ) -> Wrappers<S> {
        let wrappers = (0..count)
            .map(|w| Wrapper::new(WrapperId(w), phases, chain, Box::new(connect.clone())))
            .collect();
        Wrappers {
            wrappers,
            store,
            turns: TurnLog::new(),
        }
    }

    /// The loop's recorded turns.
    pub fn turns(&self) -> &TurnLog {
        &self.turns
    }

    /// Connections opened by all wrappers, reconnections included.
    pub fn connects(&self) -> u32 {
        self.wrappers.iter().map(Wrapper::connects).sum()
    }
}

impl<S: Read + Write + 'static> Fleet for Wrappers<S> {
    fn count(&self) -> usize {
        self.wrappers.len()
    }

    fn is_working(&self, w: WrapperId) -> bool {
        self.wrappers[w.0].is_working()
    }

    fn dispose(&mut self, w: WrapperId) -> Result<(), LoopError> {
        let wrapper = &mut self.wrappers[w.0];
        if !wrapper.is_working() {
            return Ok(()); // nothing to wait for: no turn
        }
        self.turns.sleeping();
        // Two disjoint fields: one wrapper borrowed, the store lent to it.
        let disposed = wrapper.dispose(&mut self.store);
        self.turns.woke(1);
        self.turns.done(usize::from(!wrapper.is_working()));
        Ok(disposed?)
    }

    // ANCHOR: callbacks
    fn start(&mut self, w: WrapperId, item: &Item) -> Result<(), LoopError> {
        // The callbacks capture only plain values (the item's id, the
        // lane, the start time); the store arrives as an argument when
        // `dispose` calls one of them.
        let (id, lane, started) = (item.id, w.lane(), Instant::now());
        self.wrappers[w.0].start(
            item,
            move |store, result| store.record(id, lane, started, &Ok(result)),
            move |store, item, failure| store.record(item.id, lane, started, &Err(failure)),
        )?;
        Ok(())
    }
    // ANCHOR_END: callbacks
}
