//! Reads only the first socket each wait reports: when two sockets are ready at once, the second one's event is lost (epoll will not repeat it) and its line never arrives.
//? if an event is skipped this turn, will edge-triggered epoll report that socket again?
let mut events = Vec::new();
while !self.is_idle() {
    let timeout = next_timeout(Instant::now(), self.timers.iter().map(|&(at, _)| at));
    self.selector.wait(&mut events, timeout)?;
    if let Some(event) = events.first() {
        self.read_socket(event.token, &mut handle)?;
    }
    self.fire_due_timers(Instant::now(), &mut handle);
}
Ok(())
