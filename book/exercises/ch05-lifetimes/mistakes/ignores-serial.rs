//! (written blind) Draws from the seed alone, so every connection gets the same limit and they still all retire in the same tick.
//? do two connections with different serial numbers ever get different limits from your draw?
let low = (max_uses as f64 * (1.0 - spread)).ceil() as u64;
let draw = unit(splitmix(seed));
let span = max_uses.saturating_sub(low);
let value = low + ((span as f64 + 1.0) * draw) as u64;
value.min(max_uses).max(1)
