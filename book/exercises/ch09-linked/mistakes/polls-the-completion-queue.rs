//! Submits once, then reads the completion queue in a loop until both completions are there, without ever asking the kernel to wait: the thread spins for the whole time limit where `submit_and_wait` would have slept.
//? while the two completions are on their way, is your thread asleep in the kernel or going round a loop?
let entries = [connect.flags(squeue::Flags::IO_LINK), timeout];
// SAFETY: the address and the timespec are the caller's, alive until this
// returns, and it returns only after both entries have completed.
unsafe { ring.submission().push_multiple(&entries) }
    .map_err(|_| io::Error::other("a fresh ring has room for two entries"))?;
ring.submit()?;
let mut result = None;
let mut completed = 0;
while completed < 2 {
    for cqe in ring.completion() {
        completed += 1;
        if cqe.user_data() == CONNECT {
            result = Some(cqe.result());
        }
    }
}
result.ok_or_else(|| io::Error::other("the connect did not complete"))
