//! (written blind) Takes every connection as a request in flight even when the list has fewer items than connections, so a short list gets a ceiling it can never reach.
//? with 3 items and 10 connections, how many requests can ever be in flight at once?
// region: 1
let per_item = f64::from(w.phases) * w.service.as_secs_f64();
if per_item == 0.0 {
    return f64::INFINITY;
}
w.conns as f64 / per_item
