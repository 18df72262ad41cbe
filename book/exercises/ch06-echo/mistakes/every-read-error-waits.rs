//! Waits for readiness after any failed read, not only after WouldBlock: a reset connection is readable once and fails every read, so the echo waits forever for news that will not come.
//? when a read fails because the client reset the connection, will waiting for readiness bring better news?
loop {
    let n = match conn.get_mut().read(&mut buf) {
        Ok(0) => return Ok(echoed),
        Ok(n) => n,
        Err(_) => {
            conn.wait(Direction::Readable, None)?;
            continue;
        }
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
