//! (written blind) The poll puts the thread to sleep with `std::thread::sleep` until the slot, which costs no CPU but blocks the loop's only thread, so no other task is polled and every timer fires late for the whole wait.
//? whose thread does your wait put to sleep, and which timers fire late because of it?
let now = Instant::now();
let slot = this.limiter.reserve(now);
if slot > now {
    // Sleep until the slot instead of spinning.
    std::thread::sleep(slot - now);
}
Poll::Ready(slot)
