//! Matches the first reply to the last request sent, like a stack: the server answers a connection's requests in the order they came, so replies go to items first-in, first-out.
//? in what order does the server answer one connection's requests, and in what order do your outcomes line up?
for item in items {
    if let Err(failure) = conn.send(&Request::Get(item.id, item.payload.clone())) {
        return items.iter().map(|_| Err(failure.clone())).collect();
    }
}
let mut outcomes: Vec<Outcome> = items
    .iter()
    .map(|_| outcome::answer(conn.recv()?))
    .collect();
outcomes.reverse();
outcomes
