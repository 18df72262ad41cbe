//! (written blind) Takes the wait's timeout from the most recently added timer rather than the earliest, so an earlier timer added first fires late (after the later one's deadline).
//? if the timer added last is due after one added earlier, which one decides how long you wait?
let mut events = Vec::new();
while !self.is_idle() {
    let timeout = next_timeout(Instant::now(), self.timers.last().map(|&(at, _)| at));
    self.selector.wait(&mut events, timeout)?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
