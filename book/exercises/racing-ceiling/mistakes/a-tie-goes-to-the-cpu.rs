//! Breaks a tie towards the CPU (`<` for `<=`): when both limits are equal the ceiling is the latency bound, as the documentation says.
// region: 3
let (latency, cpu) = (latency_bound(w), cpu_bound(m));
if latency < cpu {
    (latency, Bound::Latency)
} else {
    (cpu, Bound::Cpu)
}
