//! (written blind) Writes each chunk with one `write` and counts it as echoed whatever that write took, so when the socket buffer is full (the 2 MB message) the rest of the chunk is silently dropped.
//? when `write` returns `Ok(k)` with `k` smaller than the chunk, what happens to the chunk's last bytes?
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
    loop {
        match conn.get_mut().write(&buf[..n]) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                conn.wait(Direction::Writable, None)?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    echoed += n as u64;
}
