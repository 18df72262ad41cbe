//! Takes a read of 0 bytes for "nothing for now": 0 means the peer closed its side; "nothing yet" is what `WouldBlock` says.
//? which read result means "nothing yet", and which means "the peer closed its side"?
let mut bytes = 0;
loop {
    match framer.read_from(src) {
        Ok(0) => return Ok(Drained { bytes, eof: false }),
        Ok(n) => bytes += n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            return Ok(Drained { bytes, eof: false });
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
        Err(e) => return Err(e),
    }
}
