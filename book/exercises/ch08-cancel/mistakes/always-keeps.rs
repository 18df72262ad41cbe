//! (written blind) Puts the connection back after every request, even one that timed out or broke it, so the next request reads a stale answer or fails on a dead socket.
//? after a request times out or the server hangs up, is the connection you put back fit for the next request?
let outcome = match self.handle.timeout(limit, request(&mut conn, item, Phases::One)).await {
    Ok(outcome) => outcome,
    Err(elapsed) => Err(Failure::new(ErrorKind::Timeout, elapsed.to_string())),
};
self.conn = Some(conn);
outcome
