//! Waits for each reply before sending the next request, as stage 1 does: that is not pipelining, every item still pays a whole round trip.
//? must a request wait for the previous reply before it is sent, and how many round trips does your loop pay?
items
    .iter()
    .map(|item| {
        conn.send(&Request::Get(item.id, item.payload.clone()))?;
        outcome::answer(conn.recv()?)
    })
    .collect()
