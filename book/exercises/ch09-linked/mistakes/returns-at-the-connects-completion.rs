//! Returns as soon as the connect's completion is read, without waiting for the timeout's: the kernel may not be done with the timespec yet, and the caller drops it when this returns.
//? when this function returns and the caller drops the timespec, has the timeout's completion come yet?
let entries = [connect.flags(squeue::Flags::IO_LINK), timeout];
// SAFETY: (wrongly) claims the kernel is done with both pointers once the
// connect has completed; the timeout's completion is still to come.
unsafe { ring.submission().push_multiple(&entries) }
    .map_err(|_| io::Error::other("a fresh ring has room for two entries"))?;
loop {
    ring.submit_and_wait(1)?;
    for cqe in ring.completion() {
        if cqe.user_data() == CONNECT {
            return Ok(cqe.result());
        }
    }
}
