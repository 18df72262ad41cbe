//! Passes `WouldBlock` up as an error: on a non-blocking socket it is the normal end of a drain, "nothing more for now", not a failure.
//? on a non-blocking socket, is `WouldBlock` a failure, or the usual way a drain ends?
let mut bytes = 0;
loop {
    match framer.read_from(src) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => bytes += n,
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
        Err(e) => return Err(e),
    }
}
