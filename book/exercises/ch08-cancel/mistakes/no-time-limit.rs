//! Awaits the request without the time limit: a slow answer holds the caller as long as the server likes, and nothing is ever cancelled.
//? if the server never answers, what bounds how long the caller waits for this request?
let outcome = request(&mut conn, item, Phases::One).await;
if conn.is_reusable() {
    self.conn = Some(conn);
}
outcome
