//! (written blind) Reports a passed deadline as a generic `Other` I/O error, which classifies as `closed` instead of `timeout`.
//? which `io::ErrorKind` does the request report as a `timeout`, and which kind does your passed deadline give?
let now = Instant::now();
if now >= self.deadline {
    return Err(io::Error::other("deadline passed"));
}
self.inner.set_read_timeout(Some(self.deadline - now))?;
self.inner.read(buf)
