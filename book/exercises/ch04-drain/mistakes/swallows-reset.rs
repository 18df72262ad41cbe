//! (written blind) Swallows any read error other than Interrupted as "nothing for now", so a connection reset is reported as a live connection with no data instead of an error.
//? when the peer resets the connection, does your caller learn that anything went wrong?
let mut buf = [0u8; 4096];
let mut bytes = 0;
loop {
    match src.read(&mut buf) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => {
            framer.push(&buf[..n]);
            bytes += n;
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(_) => return Ok(Drained { bytes, eof: false }),
    }
}
