//! (written blind) Returns Ok(0) once the deadline has passed, which reads as a clean close ("closed") rather than a timeout.
//? once the deadline has passed, does your `read` say "time is up" or "the server hung up"?
let now = Instant::now();
if now >= self.deadline {
    return Ok(0);
}
self.inner.set_read_timeout(Some(self.deadline - now))?;
self.inner.read(buf)
