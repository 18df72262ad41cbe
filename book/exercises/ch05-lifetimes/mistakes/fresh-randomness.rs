//! Draws from a fresh random source on every call: the lifetime changes from one call to the next, so no test, and no rerun, can predict it.
//? called twice with the same seed and serial, does your `lifetime` give the same answer?
let random = std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), serial);
let draw = unit(splitmix(random));
let cut = (max_uses as f64 * spread * draw).floor() as u64;
max_uses.saturating_sub(cut).max(1)
