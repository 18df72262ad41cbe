//! (written blind) Uses spread as the fraction kept rather than the fraction that may be taken off, so spread 0 draws anything from 1 to max_uses instead of exactly max_uses.
//? with `spread` 0, does every connection get exactly `max_uses`?
let low = (max_uses as f64 * spread).ceil() as u64;
let draw = unit(splitmix(splitmix(seed) ^ serial));
let span = max_uses.saturating_sub(low);
let value = low + ((span as f64 + 1.0) * draw) as u64;
value.min(max_uses).max(1)
