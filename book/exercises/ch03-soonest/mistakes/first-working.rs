//! (written blind) Returns the lowest-numbered working wrapper without looking at when its reply is due, which is round-robin again and stalls behind a slow reply.
//? does your `soonest` ever look at when a working wrapper's reply is due?
// region: 1
(0..fleet.count()).map(WrapperId).find(|&w| fleet.is_working(w))
