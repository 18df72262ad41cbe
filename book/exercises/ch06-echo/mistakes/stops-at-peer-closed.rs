//! (written blind) Ends as soon as the reactor says the peer closed, before reading to the end of the stream, so the bytes the client sent just before hanging up are never echoed.
//? when the peer has closed, can the socket still hold bytes it sent just before, and who reads them?
loop {
    let n = match conn.get_mut().read(&mut buf) {
        Ok(0) => return Ok(echoed),
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            conn.wait(Direction::Readable, None)?;
            if conn.peer_closed() {
                return Ok(echoed);
            }
            continue;
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => return Err(e),
    };
    let mut written = 0;
    while written < n {
        match conn.get_mut().write(&buf[written..n]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(k) => written += k,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                conn.wait(Direction::Writable, None)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    echoed += n as u64;
}
