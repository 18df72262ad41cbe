//! (written blind) Compares with `<=` so one more replacement than max_respawns is forked: with no respawns allowed, a dead child is still replaced instead of its items being given up on.
//? with `max_respawns` set to 0, how many replacements does your loop fork?
let mut notes = Vec::new();
let mut respawns = 0;
while let Some((child, items)) = children.pop_front() {
    let status = wait_for(child.pid)?;
    if status == WaitStatus::Exited(child.pid, EXIT_DONE) {
        continue;
    }
    let why = format!("{} (pid {}) {}", child.worker, child.pid, describe(status));
    let left = unrecorded(scenario, &items)?;
    if respawns <= max_respawns {
        respawns += 1;
        let pid = spawn_worker(scenario, child.worker, &left, None)?;
        notes.push(format!("{why}: respawned for {} items", left.len()));
        children.push_back((Child { worker: child.worker, pid }, left));
    } else {
        notes.push(format!("{why}: gave up on {} items", left.len()));
    }
}
Ok(notes)
