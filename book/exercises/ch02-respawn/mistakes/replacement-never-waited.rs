//! (written blind) Forks the replacement but never queues it to be waited for, so supervise returns while it is still working (its items are counted lost) and the child is left a zombie.
//? after forking a replacement, who waits for it to end before `supervise` returns?
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
        let _pid = spawn_worker(scenario, child.worker, &left, None)?;
        notes.push(format!("{why}: respawned for {} items", left.len()));
    } else {
        notes.push(format!("{why}: gave up on {} items", left.len()));
    }
}
Ok(notes)
