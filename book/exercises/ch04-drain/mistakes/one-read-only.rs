//! (written blind) Reads one buffer's worth and returns, so with an edge-triggered selector the rest of the bytes stay in the socket and no event will mention them again.
//? with an edge-triggered selector, who reads the bytes that did not fit in your one buffer?
let mut buf = [0u8; 4096];
loop {
    return match src.read(&mut buf) {
        Ok(0) => Ok(Drained { bytes: 0, eof: true }),
        Ok(n) => {
            framer.push(&buf[..n]);
            Ok(Drained { bytes: n, eof: false })
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(Drained { bytes: 0, eof: false }),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => Err(e),
    };
}
