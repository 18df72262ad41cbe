//! Waits for room after any failed write, not only after WouldBlock: a connection the client reset fails every write, so the echo waits for room that will never come.
//? when a write fails because the client is gone, will the socket ever have room for the rest?
loop {
    let n = match conn.get_mut().read(&mut buf) {
        Ok(0) => return Ok(echoed),
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            conn.wait(Direction::Readable, None)?;
            continue;
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => return Err(e),
    };
    let mut sent = 0;
    while sent < n {
        match conn.get_mut().write(&buf[sent..n]) {
            Ok(written) => sent += written,
            Err(_) => conn.wait(Direction::Writable, None)?,
        }
    }
    echoed += n as u64;
}
