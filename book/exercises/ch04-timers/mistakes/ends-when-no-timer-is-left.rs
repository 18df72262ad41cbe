//! Runs only while a timer is pending: once the last one fires the loop ends, though a watched socket may still send lines.
let mut events = Vec::new();
while !self.timers.is_empty() {
    let timeout = next_timeout(Instant::now(), self.timers.iter().map(|&(at, _)| at));
    self.selector.wait(&mut events, timeout)?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
