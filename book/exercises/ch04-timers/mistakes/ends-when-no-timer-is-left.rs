//! Runs only while a timer is pending: once the last one fires the loop ends, though a watched socket may still send lines.
//? after the last timer fires, can a watched socket still send a line, and who would read it?
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
