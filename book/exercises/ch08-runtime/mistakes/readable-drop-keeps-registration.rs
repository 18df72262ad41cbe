//! (written blind) Drop forgets the socket in `readers` but never deletes it from the selector, so the registration outlives the wait: the next wait on that socket fails to register it again (already registered), and a closed descriptor stays in the selector's interest list.
//? once the wait is over and the descriptor may close, is the socket still in the selector's interest list?
// region: 6
if self.registered {
    let token = Token::new(self.fd.as_raw_fd() as usize);
    // Nobody waits for this socket any more: no waker to call.
    self.spawner.inner.readers.borrow_mut().remove(&token);
    self.registered = false;
}
