//! (written blind) Reads only the socket of the first event each wait returns, so when several sockets are ready at once the others' lines (and closes) are never read under edge-triggered epoll.
//? when one wait reports two ready sockets, which of them does your loop read?
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
