//! Waits for each reply before sending the next request, as stage 1 does: that is not pipelining, every item still pays a whole round trip.
items
    .iter()
    .map(|item| {
        conn.send(&Request::Get(item.id, item.payload.clone()))?;
        outcome::answer(conn.recv()?)
    })
    .collect()
