//! Does not count a failed probe as a trip: the breaker reopens for the same delay each time, instead of backing off from a server that stays down.
//? a server that stays down fails probe after probe: does each open period last longer than the last?
// region: 2
let open = match self.state {
    State::Closed { refusals } if refusals + 1 < self.threshold => {
        self.state = State::Closed {
            refusals: refusals + 1,
        };
        false
    }
    State::Closed { .. } => {
        self.trips += 1;
        true
    }
    State::HalfOpen => true,
    State::Open { .. } => false,
};
if open {
    let delay = self.backoff.delay(self.trips.max(1), self.seed);
    self.state = State::Open { until: now + delay };
}
