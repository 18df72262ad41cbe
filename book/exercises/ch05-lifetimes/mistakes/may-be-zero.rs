//! (written blind) Forgets the floor of one request: with spread 1 (or max_uses 0) the draw can give a lifetime of 0, a connection retired before carrying anything.
//? with `spread` 1, what is the shortest lifetime your code can give, and can a connection carry nothing?
let low = (max_uses as f64 * (1.0 - spread)).ceil() as u64;
let draw = unit(splitmix(splitmix(seed) ^ serial));
let span = max_uses.saturating_sub(low);
let value = low + ((span as f64 + 1.0) * draw) as u64;
value.min(max_uses)
