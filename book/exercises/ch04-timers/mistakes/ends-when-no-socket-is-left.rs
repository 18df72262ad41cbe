//! Runs only while a socket is watched: a loop with timers but no socket ends at once, and its timers never fire.
//? a loop with a timer set but no socket at all: does your `run` wait for the timer?
let mut events = Vec::new();
while !self.sockets.is_empty() {
    let timeout = next_timeout(Instant::now(), self.timers.iter().map(|&(at, _)| at));
    self.selector.wait(&mut events, timeout)?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
