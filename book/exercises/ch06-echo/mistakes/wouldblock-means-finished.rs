//! Takes a read's WouldBlock for the end of the client: it only means "nothing yet"; the client is finished when a read returns 0.
//? which read result says the client is finished, and which only says "nothing yet"?
loop {
    let n = match conn.get_mut().read(&mut buf) {
        Ok(0) => return Ok(echoed),
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(echoed),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => return Err(e),
    };
    let mut sent = 0;
    while sent < n {
        match conn.get_mut().write(&buf[sent..n]) {
            Ok(written) => sent += written,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                conn.wait(Direction::Writable, None)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    echoed += n as u64;
}
