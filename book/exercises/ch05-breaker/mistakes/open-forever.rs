//! Never lets the probe go once open: with no connect ever tried, nothing can find out that the server is back, and the breaker stays open for good.
//? once the breaker is open, how can it ever learn that the server is back?
match self.state {
    State::Closed { .. } => true,
    State::Open { .. } | State::HalfOpen => false,
}
