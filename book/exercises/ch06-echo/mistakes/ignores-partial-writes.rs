//! Writes each chunk with one `write` and ignores how much it took (and that it may say WouldBlock): with the socket's buffer full, part of the echo is lost.
//? with the socket's send buffer full, how much of your chunk may one `write` take, and what may it say?
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
    conn.get_mut().write(&buf[..n])?;
    echoed += n as u64;
}
