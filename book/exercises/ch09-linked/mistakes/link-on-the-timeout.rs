//! Puts `IO_LINK` on the timeout instead of the connect: the flag links an entry to the *next* one, and a `LINK_TIMEOUT` times the entry before it, so this timeout times nothing and the connect runs unbounded.
//? given where `IO_LINK` sits in your pair, which entry does the timeout actually time?
let entries = [connect, timeout.flags(squeue::Flags::IO_LINK)];
// SAFETY: the address and the timespec the entries point to are the
// caller's, alive until this function returns, and it returns only
// after both entries have completed: the kernel is done with them.
unsafe { ring.submission().push_multiple(&entries) }
    .map_err(|_| io::Error::other("a fresh ring has room for two entries"))?;
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
