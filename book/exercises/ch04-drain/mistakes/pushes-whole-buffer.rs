//! (written blind) Pushes the whole buffer into the framer instead of the n bytes just read, so stale or zero bytes past n are framed as if they had arrived.
//? a read returns `Ok(n)`: how many bytes of the buffer did it fill, and how many go to the framer?
let mut buf = [0u8; 64];
let mut bytes = 0;
loop {
    match src.read(&mut buf) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => {
            framer.push(&buf);
            bytes += n;
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Drained { bytes, eof: false }),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => return Err(e),
    }
}
