//! (written blind) Takes a read's WouldBlock as the end of the client and returns, so a slow client that pauses between sends is hung up on before it closes.
//? a client pauses between two sends after its first bytes were echoed: does your `echo` hang up on it?
loop {
    let n = match conn.get_mut().read(&mut buf) {
        Ok(0) => return Ok(echoed),
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            if echoed > 0 {
                return Ok(echoed);
            }
            conn.wait(Direction::Readable, None)?;
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
