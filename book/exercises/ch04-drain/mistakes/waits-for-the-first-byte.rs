//! Treats `WouldBlock` as "not yet" until at least one byte has come, so a drain never returns empty: the thread spins on the socket instead of going back to the selector to sleep.
//? if the socket has nothing for now, does your drain return, or keep the thread busy asking again?
let mut bytes = 0;
loop {
    match framer.read_from(src) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => bytes += n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock && bytes == 0 => {}
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            return Ok(Drained { bytes, eof: false });
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
        Err(e) => return Err(e),
    }
}
