//! (written blind) Treats an interrupted read like WouldBlock and stops draining, so the bytes still in the socket are never read (no new edge will come for them).
//? after an interrupted read, are the socket's bytes all read, and will the selector announce the rest again?
let mut buf = [0u8; 4096];
let mut bytes = 0;
loop {
    match src.read(&mut buf) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => {
            framer.push(&buf[..n]);
            bytes += n;
        }
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
            return Ok(Drained { bytes, eof: false });
        }
        Err(e) => return Err(e),
    }
}
