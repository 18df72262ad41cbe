//! (written blind) Returns Ok(0) once the deadline has passed, which reads as a clean close ("closed") rather than a timeout.
let now = Instant::now();
if now >= self.deadline {
    return Ok(0);
}
self.inner.set_read_timeout(Some(self.deadline - now))?;
self.inner.read(buf)
