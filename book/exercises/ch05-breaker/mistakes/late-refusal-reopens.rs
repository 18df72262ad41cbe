//! Counts the refusal of a connect that started before the breaker opened as a new trip: one failure is counted twice, and the breaker stays open longer for it.
//? a connect from before the breaker opened is refused now: is that a new failure, or one already counted?
// region: 2
let open = match self.state {
    State::Closed { refusals } if refusals + 1 < self.threshold => {
        self.state = State::Closed {
            refusals: refusals + 1,
        };
        false
    }
    State::Closed { .. } | State::HalfOpen | State::Open { .. } => true,
};
if open {
    self.trips += 1;
    let delay = self.backoff.delay(self.trips, self.seed);
    self.state = State::Open { until: now + delay };
}
