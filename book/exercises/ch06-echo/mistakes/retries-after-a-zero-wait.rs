//! Waits for readiness with a zero timeout and tries the read again, to "let the others run": the fiber is back at once, and the echo spins through its client's silence instead of sleeping until the socket is readable.
//? while the client is silent, does your fiber sleep until the socket is readable, or come straight back?
loop {
    let n = match conn.get_mut().read(&mut buf) {
        Ok(0) => return Ok(echoed),
        Ok(n) => n,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            // Lets the other fibers run, then tries again.
            let _ = conn.wait(Direction::Readable, Some(std::time::Duration::ZERO));
            continue;
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
        Err(e) => return Err(e),
    };
    // A write may take only part of the chunk: send the rest after.
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
