//! (written blind) Treats a read of 0 as "nothing for now" and reports eof: false, so a peer that closed is never noticed and its connection is kept waiting forever.
//? when a read returns `Ok(0)`, what has the peer done, and does your `Drained` tell the caller?
let mut buf = [0u8; 4096];
let mut bytes = 0;
loop {
    match src.read(&mut buf) {
        Ok(0) => return Ok(Drained { bytes, eof: false }),
        Ok(n) => {
            framer.push(&buf[..n]);
            bytes += n;
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Drained { bytes, eof: false }),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => return Err(e),
    }
}
