//! Closes the breaker as soon as its time is up, before any connect has succeeded: every queued checkout then connects at once to a server that may still be down.
//? when the open time is up, has any connect shown yet that the server is back?
match self.state {
    State::Closed { .. } => true,
    State::Open { until } if now >= until => {
        self.state = State::Closed { refusals: 0 };
        true
    }
    State::Open { .. } | State::HalfOpen => false,
}
