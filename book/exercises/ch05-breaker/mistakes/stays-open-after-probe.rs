//! (written blind) Lets a connect through once the open time is up but leaves the state Open instead of half-open, so every later call also gets through and many probes go out at once.
//? after `allow` lets the probe out, what state is the breaker in, and what will the next `allow` say?
// region: 1
match self.state {
    State::Closed { .. } => true,
    State::Open { until } => now >= until,
    State::HalfOpen => false,
}
