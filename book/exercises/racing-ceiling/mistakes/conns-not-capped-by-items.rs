//! (written blind) Takes every connection as a request in flight even when the list has fewer items than connections, so a short list gets a ceiling it can never reach.
// region: 1
let per_item = f64::from(w.phases) * w.service.as_secs_f64();
if per_item == 0.0 {
    return f64::INFINITY;
}
w.conns as f64 / per_item
