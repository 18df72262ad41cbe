//! Forgets the cores: a machine with two cores has two CPU-seconds to spend each second, not one.
//? what does `m.cores` change in how many items the machine can handle per second?
// region: 2
let per_item = m.cpu_per_item.as_secs_f64();
if per_item == 0.0 {
    f64::INFINITY
} else {
    1.0 / per_item
}
