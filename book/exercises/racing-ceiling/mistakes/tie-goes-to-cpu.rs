//! (written blind) Picks the latency bound only when it is strictly lower, so when the two bounds are equal the ceiling is labelled Cpu instead of Latency.
// region: 3
let (latency, cpu) = (latency_bound(w), cpu_bound(m));
if latency < cpu {
    (latency, Bound::Latency)
} else {
    (cpu, Bound::Cpu)
}
