//! Counts one service time per item: a two-phase item sends two request lines and waits for the server twice.
//? how many times does a two-phase item wait for the server before it is done?
let in_flight = w.conns.min(w.items).max(1) as f64;
let per_item = w.service.as_secs_f64();
if per_item == 0.0 {
    f64::INFINITY
} else {
    in_flight / per_item
}
