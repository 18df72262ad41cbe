//! The reactor forgets to re-register: a wait that ends forgets its waker but leaves the socket in the selector, as if one registration lasted; the next wait's registration is refused (the socket is already there), and a closed descriptor's number, reused, would inherit it.
//? when the next wait on the same socket registers it with the selector, what does the selector answer?
// region: 6
if self.registered {
    let token = Token::new(self.fd.as_raw_fd() as usize);
    self.spawner.inner.readers.borrow_mut().remove(&token);
}
