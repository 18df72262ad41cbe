//! Respawns every dead child whatever `max_respawns` says: a worker that dies on every attempt would be forked again forever.
//? if every replacement dies too, when does your loop stop forking?
let mut notes = Vec::new();
while let Some((child, items)) = children.pop_front() {
    let status = wait_for(child.pid)?;
    if status == WaitStatus::Exited(child.pid, EXIT_DONE) {
        continue;
    }
    let left = unrecorded(scenario, &items)?;
    let death = format!("{} (pid {}) {}", child.worker, child.pid, describe(status));
    if left.is_empty() {
        notes.push(format!("{death}: nothing left to do"));
    } else {
        let pid = spawn_worker(scenario, child.worker, &left, None)?;
        notes.push(format!("{death}: respawned for {} items", left.len()));
        children.push_back((
            Child {
                worker: child.worker,
                pid,
            },
            left,
        ));
    }
}
Ok(notes)
