//! (written blind) Interprets each reply with the wrong mapping: anything but `200` is reported as a protocol error, so a `500 KO` is mislabelled and a `503 busy` is not a refusal.
//? what outcome should a `500` reply get, and a `503 busy`, compared with a reply that makes no sense?
for item in items {
    if let Err(f) = conn.send(&Request::Get(item.id, item.payload.clone())) {
        return items.iter().map(|_| Err(f.clone())).collect();
    }
}
let mut outcomes = Vec::new();
for _ in items {
    let o = match conn.recv() {
        Ok(testbed::protocol::Reply::Success(r)) => Ok(r),
        Ok(other) => Err(testbed::outcome::Failure::new(
            testbed::outcome::ErrorKind::Protocol,
            format!("unexpected reply '{other}'"),
        )),
        Err(f) => Err(f),
    };
    outcomes.push(o);
}
outcomes
