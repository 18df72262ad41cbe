//! (written blind) Counts CPU time per item in whole milliseconds, so the race's 60 µs per item rounds to zero and the CPU bound comes out infinite.
//? what is 60 µs in whole milliseconds, and what does that make the CPU bound?
// region: 2
let cpu_ms = m.cpu_per_item.as_millis();
if cpu_ms == 0 {
    return f64::INFINITY;
}
m.cores * 1000.0 / cpu_ms as f64
