//! (written blind) Returns an interrupted read (EINTR) as an error instead of retrying it, so a signal arriving during the read fails the connection.
//? if a signal interrupts a read before any byte moved, is the connection broken?
let mut buf = [0u8; 4096];
let mut bytes = 0;
loop {
    match src.read(&mut buf) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => {
            framer.push(&buf[..n]);
            bytes += n;
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Drained { bytes, eof: false }),
        Err(e) => return Err(e),
    }
}
