//! Draws from the seed alone, not the serial number: every connection gets the same lifetime, so they still all retire together.
//? if every connection's draw comes out the same, do they still retire in the same tick?
let draw = unit(splitmix(seed));
let cut = (max_uses as f64 * spread * draw).floor() as u64;
max_uses.saturating_sub(cut).max(1)
