//! Reads without setting any timeout: the deadline is never consulted, so a slow server keeps the request as long as it likes.
self.inner.read(buf)
