//! (written blind) Never puts the connection back, so every request opens a new one (`opened` grows with each fetch) although a finished request left it reusable.
//? after an answer comes back cleanly, does `self.conn` ever get that connection for the next fetch?
let outcome = match self.handle.timeout(limit, request(&mut conn, item, Phases::One)).await {
    Ok(outcome) => outcome,
    Err(elapsed) => Err(Failure::new(ErrorKind::Timeout, elapsed.to_string())),
};
drop(conn);
outcome
