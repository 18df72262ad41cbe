//! (written blind) Loops only while sockets are watched, so once the last peer closes the loop returns with timers still pending and they never fire.
//? once the last peer closes, what happens to the timers still pending?
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
