//! Draws from the seed alone, not the serial number: every connection gets the same lifetime, so they still all retire together.
let draw = unit(splitmix(seed));
let cut = (max_uses as f64 * spread * draw).floor() as u64;
max_uses.saturating_sub(cut).max(1)
