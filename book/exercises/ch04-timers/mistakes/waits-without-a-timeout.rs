//! Waits with no timeout: with no socket to wake it, the loop sleeps forever and no timer ever fires.
//? with no socket to wake it, what brings your wait back when a timer falls due?
let mut events = Vec::new();
while !self.is_idle() {
    self.selector.wait(&mut events, None)?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
