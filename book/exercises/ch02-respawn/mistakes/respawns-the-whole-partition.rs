//! Forks the replacement for the dead child's whole partition, not for the items without a row: the ones it had recorded are sent and stored twice.
//? if the replacement gets everything the dead child had, what happens to the items it already recorded?
let mut notes = Vec::new();
let mut respawns = 0;
while let Some((child, items)) = children.pop_front() {
    let status = wait_for(child.pid)?;
    if status == WaitStatus::Exited(child.pid, EXIT_DONE) {
        continue;
    }
    let death = format!("{} (pid {}) {}", child.worker, child.pid, describe(status));
    if respawns < max_respawns {
        respawns += 1;
        let pid = spawn_worker(scenario, child.worker, &items, None)?;
        notes.push(format!("{death}: respawned for {} items", items.len()));
        children.push_back((
            Child {
                worker: child.worker,
                pid,
            },
            items,
        ));
    } else {
        notes.push(format!("{death}: gave up on {} items", items.len()));
    }
}
Ok(notes)
