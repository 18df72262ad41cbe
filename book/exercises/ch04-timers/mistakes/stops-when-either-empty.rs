//! (written blind) Keeps going only while there are both sockets and timers (`&&` where "nothing left" needs both empty), so a loop with only timers, or only sockets, returns at once without doing its work.
//? with sockets to watch but no timer, how many turns does your loop take?
let mut events = Vec::new();
while !self.sockets.is_empty() && !self.timers.is_empty() {
    let timeout = next_timeout(Instant::now(), self.timers.iter().map(|&(at, _)| at));
    self.selector.wait(&mut events, timeout)?;
    for event in &events {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
