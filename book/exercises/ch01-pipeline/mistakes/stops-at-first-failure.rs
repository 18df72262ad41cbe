//! Stops reading at the first failed reply and fails every item after it: a `KO` answers one request only, and the replies after it still belong to theirs.
//? does a failed answer for one item say anything about the replies that come after it?
for item in items {
    if let Err(failure) = conn.send(&Request::Get(item.id, item.payload.clone())) {
        return items.iter().map(|_| Err(failure.clone())).collect();
    }
}
let mut outcomes: Vec<Outcome> = Vec::new();
for _ in items {
    let outcome = conn.recv().and_then(outcome::answer);
    let failed = outcome.is_err();
    outcomes.push(outcome);
    if failed {
        break;
    }
}
if let Some(last) = outcomes.last().cloned() {
    outcomes.resize(items.len(), last);
}
outcomes
