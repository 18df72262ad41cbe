//! Calls `write_all` on the non-blocking socket: it does not wait for room, it fails with WouldBlock as soon as the socket's buffer is full, and the echo gives up.
//? on a non-blocking socket, what does `write_all` do when the send buffer is full?
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
    conn.get_mut().write_all(&buf[..n])?;
    echoed += n as u64;
}
