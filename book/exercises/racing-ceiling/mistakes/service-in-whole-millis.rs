//! (written blind) Counts the service time in whole milliseconds, so 1.5 ms becomes 1 ms and anything under 1 ms becomes 0 and an infinite bound.
//? what does a service time of 1.5 ms, or of 0.8 ms, become when counted in whole milliseconds?
// region: 1
let per_item_ms = u64::from(w.phases) * w.service.as_millis() as u64;
if per_item_ms == 0 {
    return f64::INFINITY;
}
w.conns.min(w.items) as f64 * 1000.0 / per_item_ms as f64
