//! (written blind) Counts a failed probe as the first refusal of a closed breaker instead of reopening it, so after a failed probe connects go ahead again until threshold more refusals.
//? when the probe is refused, is the server known to be down again, or does it take `threshold` more refusals?
// region: 2
let refusals = match self.state {
    State::Closed { refusals } => refusals + 1,
    State::HalfOpen => 1,
    State::Open { .. } => return,
};
if refusals >= self.threshold {
    self.trips += 1;
    self.state = State::Open { until: now + self.backoff.delay(self.trips, self.seed) };
} else {
    self.state = State::Closed { refusals };
}
