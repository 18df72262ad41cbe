//! (written blind) Computes the open deadline from Instant::now() instead of the `now` it was given, so on the tests' fake clock the breaker opens until the wrong time.
//? which clock does your open deadline come from: the `now` you were given, or another one?
// region: 2
let open = |this: &mut Breaker| {
    this.trips += 1;
    this.state = State::Open { until: Instant::now() + this.backoff.delay(this.trips, this.seed) };
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
