//! Submits the connect before pushing its timeout: a link does not survive the end of a submission, so the connect goes in alone, the timeout that follows has nothing to time, and the connect runs unbounded.
//? does a link between two entries survive a `submit` that runs between pushing the first and the second?
// SAFETY: the address and the timespec the entries point to are the
// caller's, alive until this function returns, and it returns only
// after both entries have completed: the kernel is done with them.
unsafe {
    ring.submission()
        .push(&connect.flags(squeue::Flags::IO_LINK))
        .map_err(|_| io::Error::other("a fresh ring has room for the connect"))?;
    ring.submit()?;
    ring.submission()
        .push(&timeout)
        .map_err(|_| io::Error::other("a fresh ring has room for the timeout"))?;
}
let mut result = None;
let mut completed = 0;
while completed < 2 {
    ring.submit_and_wait(2 - completed)?;
    for cqe in ring.completion() {
        completed += 1;
        if cqe.user_data() == CONNECT {
            result = Some(cqe.result());
        }
    }
}
result.ok_or_else(|| io::Error::other("the connect did not complete"))
