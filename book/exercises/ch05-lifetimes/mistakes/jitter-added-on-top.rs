//! Adds the jitter on top of `max_uses` instead of taking it off: connections then outlive the limit they were given.
//? can your lifetime come out above `max_uses`, the limit the connection was given?
let draw = unit(splitmix(splitmix(seed) ^ serial));
let extra = (max_uses as f64 * spread * draw).floor() as u64;
max_uses + extra
