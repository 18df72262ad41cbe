//! (written blind) Returns the higher of the two bounds, though the limit met first (the lower one) is the ceiling, so stage 1 is promised a throughput the machine or the server cannot give.
//? as a client speeds up it meets two limits: which one stops it first?
// region: 3
let (latency, cpu) = (latency_bound(w), cpu_bound(m));
if latency >= cpu {
    (latency, Bound::Latency)
} else {
    (cpu, Bound::Cpu)
}
