//! Computes the timeout from the timer added first, not the earliest: a timer added later but due sooner waits until the first one is due.
//? is the timer added first always the one due soonest?
let mut events = Vec::new();
while !self.is_idle() {
    let timeout = next_timeout(Instant::now(), self.timers.first().map(|&(at, _)| at));
    self.selector.wait(&mut events, timeout)?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
