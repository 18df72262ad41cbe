//! (written blind) Keeps the connection whenever it is not broken, forgetting that a timed-out request poisons it, so the next request reads the late answer of the abandoned one as its own.
//? is a connection whose request was dropped half-way broken, or in a state that `is_broken` does not see?
let outcome = match self.handle.timeout(limit, request(&mut conn, item, Phases::One)).await {
    Ok(outcome) => outcome,
    Err(elapsed) => Err(Failure::new(ErrorKind::Timeout, elapsed.to_string())),
};
if !conn.is_broken() {
    self.conn = Some(conn);
}
outcome
