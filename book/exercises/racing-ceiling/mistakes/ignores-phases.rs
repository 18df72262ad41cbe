//! (written blind) Divides by one service time per item, forgetting that a two-phase item spends `phases × service` in the server, so the latency bound is twice too high for the race.
//? how long does one item spend in the server when it sends `phases` request lines?
// region: 1
let service = w.service.as_secs_f64();
if service == 0.0 {
    return f64::INFINITY;
}
w.conns.min(w.items) as f64 / service
