//! (written blind) Treats half-open as "trying again" and allows every connect in it, so more than one connect goes out while the probe is still unanswered.
//? while the probe is still unanswered, what does your `allow` say to the next connect?
// region: 1
match self.state {
    State::Closed { .. } | State::HalfOpen => true,
    State::Open { until } if now >= until => {
        self.state = State::HalfOpen;
        true
    }
    State::Open { .. } => false,
}
