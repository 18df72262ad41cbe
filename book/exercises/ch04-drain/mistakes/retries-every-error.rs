//! Tries the read again after any error, not only after `Interrupted`: a connection reset fails every read, and the drain then spins (or reports "nothing for now") instead of passing the error up.
//? which read errors does your loop try again, and what happens on a connection that was reset?
let mut bytes = 0;
loop {
    match framer.read_from(src) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => bytes += n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            return Ok(Drained { bytes, eof: false });
        }
        Err(_) => {}
    }
}
