//! Counts reads instead of bytes: `bytes` should say how many bytes went into the framer, as a caller's byte count (for a limit or a report) relies on.
//? what does your `bytes` grow by on each successful read?
let mut bytes = 0;
loop {
    match framer.read_from(src) {
        Ok(0) => return Ok(Drained { bytes, eof: true }),
        Ok(_) => bytes += 1,
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
            return Ok(Drained { bytes, eof: false });
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
        Err(e) => return Err(e),
    }
}
