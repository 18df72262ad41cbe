//! Keeps the connection whatever happened: after a timeout the server's late answer is still on its way, and the next request on this connection reads it as its own.
//? where does the server's late answer go when the next request runs on the connection that timed out?
let outcome = match self
    .handle
    .timeout(limit, request(&mut conn, item, Phases::One))
    .await
{
    Ok(outcome) => outcome,
    Err(_) => Err(Failure::new(ErrorKind::Timeout, "no answer in time")),
};
self.conn = Some(conn);
outcome
