//! (written blind) When the respawns are used up, the note counts the dead child's whole partition rather than its items without a row, overstating what was lost ("gave up on 12" when 9 are missing).
//? when you give up on a dead child, how many of its items really have no row yet?
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
        let left = unrecorded(scenario, &items)?;
        let pid = spawn_worker(scenario, child.worker, &left, None)?;
        notes.push(format!("{why}: respawned for {} items", left.len()));
        children.push_back((Child { worker: child.worker, pid }, left));
    } else {
        notes.push(format!("{why}: gave up on {} items", items.len()));
    }
}
Ok(notes)
