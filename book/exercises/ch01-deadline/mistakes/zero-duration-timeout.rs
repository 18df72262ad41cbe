//! (written blind) Passes the remaining time straight to set_read_timeout, so once the deadline has passed it sets Some(0), which is an InvalidInput error instead of a TimedOut failure.
//? after the deadline has passed, what does `set_read_timeout(Some(Duration::ZERO))` return?
let left = self.deadline.saturating_duration_since(Instant::now());
self.inner.set_read_timeout(Some(left))?;
self.inner.read(buf)
