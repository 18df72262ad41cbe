//! (written blind) Computes the span as max_uses - low + 1 in integers, which overflows (panics in debug) when max_uses is near u64::MAX and the spread takes the low bound to 0.
//? with `max_uses` near `u64::MAX`, what does your integer arithmetic do before the draw?
let low = (max_uses as f64 * (1.0 - spread)).ceil() as u64;
let draw = unit(splitmix(splitmix(seed) ^ serial));
let span = max_uses - low + 1;
let value = low + (span as f64 * draw) as u64;
value.min(max_uses).max(1)
