//! Opens one refusal too late (`refusals < threshold`): with a threshold of 3 the breaker should open on the third refusal in a row, not the fourth.
//? when you compare the count with `threshold`, does it include the refusal being reported right now?
// region: 2
let open = match self.state {
    State::Closed { refusals } if refusals < self.threshold => {
        self.state = State::Closed {
            refusals: refusals + 1,
        };
        false
    }
    State::Closed { .. } | State::HalfOpen => true,
    State::Open { .. } => false,
};
if open {
    self.trips += 1;
    let delay = self.backoff.delay(self.trips, self.seed);
    self.state = State::Open { until: now + delay };
}
