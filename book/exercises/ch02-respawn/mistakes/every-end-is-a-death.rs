//! Never looks at how the child ended: a worker that exited 0 after finishing its partition is reported as a death too.
//? a child that exits 0 after finishing its partition: does your loop tell it apart from one that died?
let mut notes = Vec::new();
let mut respawns = 0;
while let Some((child, items)) = children.pop_front() {
    let status = wait_for(child.pid)?;
    let left = unrecorded(scenario, &items)?;
    let death = format!("{} (pid {}) {}", child.worker, child.pid, describe(status));
    if left.is_empty() {
        notes.push(format!("{death}: nothing left to do"));
    } else if respawns < max_respawns {
        respawns += 1;
        let pid = spawn_worker(scenario, child.worker, &left, None)?;
        notes.push(format!("{death}: respawned for {} items", left.len()));
        children.push_back((
            Child {
                worker: child.worker,
                pid,
            },
            left,
        ));
    } else {
        notes.push(format!("{death}: gave up on {} items", left.len()));
    }
}
Ok(notes)
