//! Takes the higher of the two bounds: a client is held to whichever limit it meets first, so the ceiling is the lower one.
//? if the server allows 500 items/s and the CPU only 300, how many can the client really do?
// region: 3
let (latency, cpu) = (latency_bound(w), cpu_bound(m));
if latency >= cpu {
    (latency, Bound::Latency)
} else {
    (cpu, Bound::Cpu)
}
