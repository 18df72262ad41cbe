//! (written blind) Draws the delay before counting the trip, so the first opening uses delay(0) and every later wait is one doubling short of what backoff.delay(trips, seed) promises.
//? for the first opening, which `trips` value does your delay come from, and does it count that trip?
// region: 2
let mut open = |this: &mut Breaker| {
    let delay = this.backoff.delay(this.trips, this.seed);
    this.trips += 1;
    this.state = State::Open { until: now + delay };
};
match self.state {
    State::Closed { refusals } => {
        let refusals = refusals + 1;
        if refusals >= self.threshold {
            open(self);
        } else {
            self.state = State::Closed { refusals };
        }
    }
    State::HalfOpen => open(self),
    State::Open { .. } => {}
}
