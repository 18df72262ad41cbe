//! (written blind) Truncates the lower bound max_uses × (1 − spread) instead of rounding it up, so with a fractional bound (10 × 0.45 = 4.5) a connection may get 4 requests, below the promised minimum.
//? when `max_uses × (1 − spread)` is 4.5, can your lifetime come out as 4?
let low = (max_uses as f64 * (1.0 - spread)) as u64;
let draw = unit(splitmix(splitmix(seed) ^ serial));
let span = max_uses.saturating_sub(low);
let value = low + ((span as f64 + 1.0) * draw) as u64;
value.min(max_uses).max(1)
