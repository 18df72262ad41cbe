//! (written blind) Reads the replies into a stack and pops them, so the first reply is given to the last item although replies come back in request order.
//? the first reply read off the connection: which item's outcome does it become in your list?
for item in items {
    if let Err(f) = conn.send(&Request::Get(item.id, item.payload.clone())) {
        return items.iter().map(|_| Err(f.clone())).collect();
    }
}
let mut replies = Vec::new();
for _ in items {
    replies.push(conn.recv().and_then(outcome::answer));
}
let mut outcomes = Vec::new();
while let Some(o) = replies.pop() {
    outcomes.push(o);
}
outcomes
