//! (written blind) Divides one second by the CPU time of an item as if there were a single core, so a two-core machine's CPU bound is halved.
//? how many CPU-seconds does a two-core machine have to spend each second?
// region: 2
let cpu = m.cpu_per_item.as_secs_f64();
if cpu == 0.0 {
    return f64::INFINITY;
}
1.0 / cpu
