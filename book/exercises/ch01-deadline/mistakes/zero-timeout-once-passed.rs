//! Forgets that the deadline may already have passed: `set_read_timeout(Some(0))` is an error (invalid input), not a timeout, so the request fails for the wrong reason.
//? when the time left is zero, is the error your `read` returns a `TimedOut`, or one from `set_read_timeout`?
let left = self.deadline.saturating_duration_since(Instant::now());
self.inner.set_read_timeout(Some(left))?;
self.inner.read(buf)
