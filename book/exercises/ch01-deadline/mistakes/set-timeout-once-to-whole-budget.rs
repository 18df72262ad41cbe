//! (written blind) Sets the timeout to the time left only when it is still unset-like (first read) and never shrinks it afterwards, so a trickling server keeps the request alive past the deadline.
//? when the second read starts, is the socket's timeout the time left now, or what was left at the first read?
if self.inner.read_timeout()?.is_none() {
    let left = self.deadline.saturating_duration_since(Instant::now());
    self.inner.set_read_timeout(Some(left.max(std::time::Duration::from_millis(1))))?;
}
self.inner.read(buf)
