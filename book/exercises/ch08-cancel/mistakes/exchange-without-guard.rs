//! (written blind) Runs the bare `exchange` instead of `request`, so a timeout that drops it leaves no poison mark and the half-finished connection is judged reusable and kept.
//? when the timeout drops a bare `exchange` half-way, what marks the connection as still owing a late answer?
let outcome = match self.handle.timeout(limit, executor::exchange(&mut conn, item, Phases::One)).await {
    Ok(outcome) => outcome,
    Err(elapsed) => Err(Failure::new(ErrorKind::Timeout, elapsed.to_string())),
};
if conn.is_reusable() {
    self.conn = Some(conn);
}
outcome
