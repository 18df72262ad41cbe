//! Drops the connection only when it is poisoned: a connection the server closed (or that read garbage) is broken, not poisoned, and no request can follow on it either.
//? can a connection the server closed carry another request, even though no timeout poisoned it?
let outcome = match self
    .handle
    .timeout(limit, request(&mut conn, item, Phases::One))
    .await
{
    Ok(outcome) => outcome,
    Err(_) => Err(Failure::new(ErrorKind::Timeout, "no answer in time")),
};
if !conn.is_poisoned() {
    self.conn = Some(conn);
}
outcome
