//! Takes the draw off the whole of `max_uses`, ignoring `spread`: lifetimes then fall anywhere down to 1, far below `max_uses × (1 − spread)`.
//? with `spread` 0.5 and `max_uses` 10, how low can your lifetime go, and where does `spread` come in?
let draw = unit(splitmix(splitmix(seed) ^ serial));
let cut = (max_uses as f64 * draw).floor() as u64;
max_uses.saturating_sub(cut).max(1)
