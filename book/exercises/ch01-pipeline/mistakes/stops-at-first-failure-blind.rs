//! (written blind) Stops reading at the first failed reply (even a plain 500 answer) and returns fewer outcomes than items, so later items get no outcome at all.
//? how many outcomes must `pipelined` return, whatever happens to one of the items?
for item in items {
    if let Err(f) = conn.send(&Request::Get(item.id, item.payload.clone())) {
        return vec![Err(f)];
    }
}
let mut outcomes = Vec::new();
for _ in items {
    let o = conn.recv().and_then(outcome::answer);
    let failed = o.is_err();
    outcomes.push(o);
    if failed {
        break;
    }
}
outcomes
