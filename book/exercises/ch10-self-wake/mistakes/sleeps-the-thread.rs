//! Sleeps the thread until the slot (`std::thread::sleep`) and then returns `Ready`: no spin, but the loop's only thread is asleep inside one poll, and every other task and timer waits with it.
//? while `std::thread::sleep` runs inside `poll`, what are the other tasks and timers doing?
let limiter = this.limiter;
let slot = limiter.reserve(Instant::now());
std::thread::sleep(slot.saturating_duration_since(Instant::now()));
Poll::Ready(slot)
