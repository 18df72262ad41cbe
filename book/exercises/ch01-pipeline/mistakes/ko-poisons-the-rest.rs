//! (written blind) Treats a `500` answer like a broken connection and fails every later item with it, though a KO is an answer and the following replies are still good.
//? after a `500` answer, is the connection broken, or are the replies queued behind it still good?
for item in items {
    if let Err(f) = conn.send(&Request::Get(item.id, item.payload.clone())) {
        return items.iter().map(|_| Err(f.clone())).collect();
    }
}
let mut outcomes = Vec::new();
let mut broken: Option<testbed::outcome::Failure> = None;
for _ in items {
    if let Some(f) = &broken {
        outcomes.push(Err(f.clone()));
        continue;
    }
    let o = conn.recv().and_then(outcome::answer);
    if let Err(f) = &o {
        broken = Some(f.clone());
    }
    outcomes.push(o);
}
outcomes
