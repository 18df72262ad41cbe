//! (written blind) Reports a request that ran past its limit as `closed` rather than `timeout`, mislabelling the failure (the connection was fine; the answer was late).
//? when the answer is late but the connection is fine, which `ErrorKind` tells the caller what happened?
let outcome = match self.handle.timeout(limit, request(&mut conn, item, Phases::One)).await {
    Ok(outcome) => outcome,
    Err(elapsed) => Err(Failure::new(ErrorKind::Closed, elapsed.to_string())),
};
if conn.is_reusable() {
    self.conn = Some(conn);
}
outcome
