//! (written blind) Mixes a process-wide call counter into the draw, so the same seed and serial give a different lifetime on every call and a test cannot predict it.
//? what in your draw changes from one call to the next, besides the seed and the serial?
use std::sync::atomic::{AtomicU64, Ordering};
static CALLS: AtomicU64 = AtomicU64::new(0);
let nonce = CALLS.fetch_add(1, Ordering::Relaxed);
let low = (max_uses as f64 * (1.0 - spread)).ceil() as u64;
let draw = unit(splitmix(splitmix(seed ^ nonce) ^ serial));
let span = max_uses.saturating_sub(low);
let value = low + ((span as f64 + 1.0) * draw) as u64;
value.min(max_uses).max(1)
