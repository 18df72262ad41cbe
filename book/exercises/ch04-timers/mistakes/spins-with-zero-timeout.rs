//! (written blind) Polls with a zero timeout whenever a timer is pending instead of waiting until the earliest one is due, so the loop busy-waits and burns a CPU until the timer fires.
//? while a timer is pending but not yet due, does your wait ever put the thread to sleep?
let mut events = Vec::new();
while !self.is_idle() {
    let timeout = if self.timers.is_empty() {
        None
    } else {
        Some(std::time::Duration::ZERO)
    };
    self.selector.wait(&mut events, timeout)?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
