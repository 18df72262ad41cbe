//! (written blind) Compares with `>` so at exactly `until` the breaker neither fails fast (fail_fast says now < until) nor lets the probe go: the edge instant falls between the two.
//? at exactly `until`, `fail_fast` says no: what does your `allow` say?
// region: 1
match self.state {
    State::Closed { .. } => true,
    State::Open { until } if now > until => {
        self.state = State::HalfOpen;
        true
    }
    State::Open { .. } => false,
    State::HalfOpen => false,
}
