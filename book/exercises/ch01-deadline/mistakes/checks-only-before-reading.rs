//! Checks the deadline before each read but reads with no timeout: a read that starts just before the deadline waits for the reply, however late.
//? a read that starts 1 ms before the deadline: how long can it then block, waiting for the reply?
if Instant::now() >= self.deadline {
    return Err(io::Error::new(io::ErrorKind::TimedOut, "deadline passed"));
}
self.inner.read(buf)
