//! Chapter 1's request, as an `async fn`.
//!
//! [`exchange`] is 01-sync's `request` line for line, with an `.await`
//! after each `send` and `recv`: the places where the blocking version
//! waits are exactly the places where this one returns `Pending`. The
//! compiler turns the function into a state machine, an enum with one
//! variant per `.await`, holding the locals that live across it; that enum
//! is the future, and its size (`size_of_val`, in the report as
//! `request_future_bytes`) is all the memory a waiting request needs. Stage
//! 4 wrote that state machine by hand (`select::exchange`); stage 6 kept
//! the blocking function and gave it a stack.
//!
//! [`request`] wraps the conversation in the connection's [`InFlight`]
//! guard, so that a caller who drops the future half-way (a timeout) leaves
//! a connection marked as poisoned rather than one that looks fine.
//!
//! Not here: the connection (`conn.rs`), the timeout and what the stage
//! does with a poisoned connection (`stage.rs`).
//!
//! [`InFlight`]: crate::InFlight

use testbed::outcome::{self, Outcome};
use testbed::protocol::{Phases, Request};
use testbed::workload::Item;

use crate::conn::AsyncConn;

/// Sends one item over `conn` and waits for its answer, as one
/// conversation: if this future is dropped before it ends, `conn` is
/// poisoned (see [`AsyncConn::begin`]).
///
/// # Examples
///
/// Chapter 1's request, awaited, against an embedded slow server:
///
/// ```
/// use executor::{AsyncConn, Executor, request};
/// use testbed::protocol::Phases;
/// use testbed::server::{ServerConfig, SlowServer};
/// use testbed::workload::items;
///
/// let server = SlowServer::spawn(ServerConfig {
///     latency: "1ms".parse()?,
///     ..ServerConfig::default()
/// })?;
/// let executor = Executor::new()?;
/// let handle = executor.handle();
/// let item = items(1, 1).remove(0);
/// let outcome = executor.block_on(async move {
///     let mut conn = AsyncConn::connect(&handle, server.addr()).await?;
///     let outcome = request(&mut conn, &item, Phases::Two).await;
///     Ok::<_, std::io::Error>((outcome, item.expected_result()))
/// })??;
/// assert_eq!(outcome.0, Ok(outcome.1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
// ANCHOR: request
pub async fn request(conn: &mut AsyncConn, item: &Item, phases: Phases) -> Outcome {
    let mut conn = conn.begin();
    let outcome = exchange(&mut conn, item, phases).await;
    conn.end(&outcome);
    outcome
}
// ANCHOR_END: request

// ANCHOR: exchange
/// One `GET`, or `HEAD`, `OK`, `BODY`: 01-sync's `request` with an
/// `.await` at each wait.
pub async fn exchange(conn: &mut AsyncConn, item: &Item, phases: Phases) -> Outcome {
    if phases == Phases::Two {
        conn.send(&Request::Head(item.id)).await?;
        // `OK` goes on; `NAK`, or any other reply, ends the item here.
        outcome::ack(conn.recv().await?)?;
        conn.send(&Request::Body(item.id, item.payload.clone()))
            .await?;
    } else {
        conn.send(&Request::Get(item.id, item.payload.clone()))
            .await?;
    }
    // `200` is the result; `500`, or any other reply, a failure.
    outcome::answer(conn.recv().await?)
}
// ANCHOR_END: exchange
