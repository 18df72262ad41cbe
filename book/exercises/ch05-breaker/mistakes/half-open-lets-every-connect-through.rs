//! Lets every connect through while half-open: the probe is meant to be the only one, or a server that just came back is hit by the whole queue at once.
//? when the breaker turns half-open, how many connects hit a server that just came back?
match self.state {
    State::Closed { .. } => true,
    State::Open { until } if now >= until => {
        self.state = State::HalfOpen;
        true
    }
    State::Open { .. } => false,
    State::HalfOpen => true,
}
