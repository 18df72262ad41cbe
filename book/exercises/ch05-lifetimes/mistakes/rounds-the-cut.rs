//! Rounds the cut to the nearest whole request instead of flooring it: with 10 and a spread of 0.37 the cut can reach 4, leaving 6, below the 7 (6.3 rounded up) the docs promise as the least.
//? with `max_uses` 10 and `spread` 0.37, how much can your cut take off at most, and what is left?
let draw = unit(splitmix(splitmix(seed) ^ serial));
let cut = (max_uses as f64 * spread * draw).round() as u64;
max_uses.saturating_sub(cut).max(1)
