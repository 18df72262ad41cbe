//! Treats a read interrupted by a signal as a failure: `Interrupted` means nothing happened and the read should simply be tried again.
//? what does `ErrorKind::Interrupted` say happened to the read, and what does your drain do with it?
let mut bytes = 0;
loop {
    match framer.read_from(src) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => bytes += n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            return Ok(Drained { bytes, eof: false });
        }
        Err(e) => return Err(e),
    }
}
