//! Drops every connection after its request, to be safe: a connection whose conversation ended is as good as new, and opening one per request wastes a handshake each time.
//? what does opening a connection per request cost, when one whose conversation ended could carry the next?
match self
    .handle
    .timeout(limit, request(&mut conn, item, Phases::One))
    .await
{
    Ok(outcome) => outcome,
    Err(_) => Err(Failure::new(ErrorKind::Timeout, "no answer in time")),
}
