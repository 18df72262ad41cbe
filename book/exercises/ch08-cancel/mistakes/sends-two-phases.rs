//! (written blind) Sends the item as a two-phase HEAD/BODY request instead of the single GET the doc promises, so a NAK to the HEAD fails items a GET would have answered, and the server sees the wrong requests.
//? which request does the doc promise for one item, and which requests does the server see from yours?
let outcome = match self.handle.timeout(limit, request(&mut conn, item, Phases::Two)).await {
    Ok(outcome) => outcome,
    Err(elapsed) => Err(Failure::new(ErrorKind::Timeout, elapsed.to_string())),
};
if conn.is_reusable() {
    self.conn = Some(conn);
}
outcome
