//! (written blind) Treats a failed write (a reset, a broken pipe) as the client having left and returns Ok, so the caller is told the echo succeeded when it failed.
//? when a write fails with a reset or a broken pipe, what does your caller learn about the echo?
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
    let mut written = 0;
    while written < n {
        match conn.get_mut().write(&buf[written..n]) {
            Ok(0) => return Ok(echoed),
            Ok(k) => written += k,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                conn.wait(Direction::Writable, None)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Ok(echoed + written as u64),
        }
    }
    echoed += n as u64;
}
