//! (written blind) Picks the latency bound only when it is strictly lower, so when the two bounds are equal the ceiling is labelled Cpu instead of Latency.
//? if the latency bound equals the CPU bound, which branch does your comparison take?
// region: 3
let (latency, cpu) = (latency_bound(w), cpu_bound(m));
if latency < cpu {
    (latency, Bound::Latency)
} else {
    (cpu, Bound::Cpu)
}
