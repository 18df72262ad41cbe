//! (written blind) Forks the replacement for the dead child's whole partition instead of the items without a row, so recorded items are requested and recorded twice and the note says "respawned for 5 items" instead of 2.
//? which of a dead child's items already have a row, and does the replacement need to do them again?
let mut notes = Vec::new();
let mut respawns = 0;
while let Some((child, items)) = children.pop_front() {
    let status = wait_for(child.pid)?;
    if status == WaitStatus::Exited(child.pid, EXIT_DONE) {
        continue;
    }
    let why = format!("{} (pid {}) {}", child.worker, child.pid, describe(status));
    if respawns < max_respawns {
        respawns += 1;
        let pid = spawn_worker(scenario, child.worker, &items, None)?;
        notes.push(format!("{why}: respawned for {} items", items.len()));
        children.push_back((Child { worker: child.worker, pid }, items));
    } else {
        let left = unrecorded(scenario, &items)?;
        notes.push(format!("{why}: gave up on {} items", left.len()));
    }
}
Ok(notes)
