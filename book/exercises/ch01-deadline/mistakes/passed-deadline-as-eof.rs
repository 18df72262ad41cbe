//! Reports a passed deadline as end of file (`Ok(0)`): the request then believes the server closed the connection, and says `closed`, not `timeout`.
//? when `read` returns `Ok(0)`, what does the request conclude the server did?
let left = self.deadline.saturating_duration_since(Instant::now());
if left.is_zero() {
    return Ok(0);
}
self.inner.set_read_timeout(Some(left))?;
self.inner.read(buf)
