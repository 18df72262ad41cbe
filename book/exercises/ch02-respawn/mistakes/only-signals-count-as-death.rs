//! (written blind) Treats every normal exit as success and only respawns children killed by a signal, so a child that exited 1 (database failed) or 2 (panicked) leaves its items lost without a note.
//? a child that exits with status 1 or 2 was not killed by a signal: did it finish its items?
let mut notes = Vec::new();
let mut respawns = 0;
while let Some((child, items)) = children.pop_front() {
    let status = wait_for(child.pid)?;
    if matches!(status, WaitStatus::Exited(..)) {
        continue;
    }
    let why = format!("{} (pid {}) {}", child.worker, child.pid, describe(status));
    let left = unrecorded(scenario, &items)?;
    if respawns < max_respawns {
        respawns += 1;
        let pid = spawn_worker(scenario, child.worker, &left, None)?;
        notes.push(format!("{why}: respawned for {} items", left.len()));
        children.push_back((Child { worker: child.worker, pid }, left));
    } else {
        notes.push(format!("{why}: gave up on {} items", left.len()));
    }
}
Ok(notes)
