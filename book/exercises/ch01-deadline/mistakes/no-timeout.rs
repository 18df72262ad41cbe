//! Reads without setting any timeout: the deadline is never consulted, so a slow server keeps the request as long as it likes.
//? where does your `read` look at `self.deadline`, and what bounds a read from a slow server?
self.inner.read(buf)
