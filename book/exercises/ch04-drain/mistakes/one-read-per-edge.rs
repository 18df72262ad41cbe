//! Reads once per event, as if epoll were level-triggered: the bytes left in the socket are never announced again, and the reader waits for them forever.
//? if the socket holds more than one read's worth, will epoll report it readable again for the bytes left?
match framer.read_from(src) {
    Ok(0) => Ok(Drained {
        bytes: 0,
        eof: true,
    }),
    Ok(n) => Ok(Drained {
        bytes: n,
        eof: false,
    }),
    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(Drained {
        bytes: 0,
        eof: false,
    }),
    Err(e) => Err(e),
}
