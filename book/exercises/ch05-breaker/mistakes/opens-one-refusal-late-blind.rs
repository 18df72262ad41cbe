//! (written blind) Opens only when the refusals exceed the threshold (`>`), so it takes threshold + 1 refusals in a row to open the breaker.
//? with a threshold of 3, on which refusal in a row does your breaker open?
// region: 2
match self.state {
    State::Closed { refusals } => {
        let refusals = refusals + 1;
        if refusals > self.threshold {
            self.trips += 1;
            self.state = State::Open { until: now + self.backoff.delay(self.trips, self.seed) };
        } else {
            self.state = State::Closed { refusals };
        }
    }
    State::HalfOpen => {
        self.trips += 1;
        self.state = State::Open { until: now + self.backoff.delay(self.trips, self.seed) };
    }
    State::Open { .. } => {}
}
