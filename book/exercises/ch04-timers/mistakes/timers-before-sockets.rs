//! (written blind) Fires the due timers before reading the sockets that woke the wait, so a line that arrived before a timer was due is reported after it (wrong order).
//? a line arrived during the wait and a timer fell due just after: in what order does your loop report them?
let mut events = Vec::new();
while !self.is_idle() {
    let timeout = next_timeout(Instant::now(), self.timers.iter().map(|&(at, _)| at));
    self.selector.wait(&mut events, timeout)?;
    self.fire_due_timers(Instant::now(), &mut handle);
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
}
Ok(())
