//! (written blind) Overwrites the byte count with each read's size instead of adding, so after several reads it reports only the last one's bytes.
//? after reads of 4096, 4096 and 100 bytes, what does your `bytes` say?
let mut buf = [0u8; 16];
let mut bytes = 0;
loop {
    match src.read(&mut buf) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(n) => {
            framer.push(&buf[..n]);
            bytes = n;
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Drained { bytes, eof: false }),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => return Err(e),
    }
}
