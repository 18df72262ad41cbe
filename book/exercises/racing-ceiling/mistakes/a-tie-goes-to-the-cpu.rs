//! Breaks a tie towards the CPU (`<` for `<=`): when both limits are equal the ceiling is the latency bound, as the documentation says.
//? when the two bounds are exactly equal, which `Bound` does the documentation name as the ceiling?
// region: 3
let (latency, cpu) = (latency_bound(w), cpu_bound(m));
if latency < cpu {
    (latency, Bound::Latency)
} else {
    (cpu, Bound::Cpu)
}
