//! (written blind) Returns as soon as the first respawn is used up, without waiting for the children still queued, so they are left running (and unreaped) while the run is reported.
//? once the respawns are used up, what happens to the children still in the queue?
let mut notes = Vec::new();
let mut respawns = 0;
while let Some((child, items)) = children.pop_front() {
    let status = wait_for(child.pid)?;
    if status == WaitStatus::Exited(child.pid, EXIT_DONE) {
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
        return Ok(notes);
    }
}
Ok(notes)
