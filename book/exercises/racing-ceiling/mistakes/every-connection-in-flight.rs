//! Counts every connection as in flight: with fewer items than connections, the extra connections have nothing to carry and add nothing.
//? what does a connection with no item left to carry add to the throughput?
let in_flight = w.conns.max(1) as f64;
let per_item = f64::from(w.phases) * w.service.as_secs_f64();
if per_item == 0.0 {
    f64::INFINITY
} else {
    in_flight / per_item
}
