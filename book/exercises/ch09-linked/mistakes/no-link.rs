//! Pushes the two entries without `IO_LINK`: the kernel refuses a link timeout with nothing linked before it, and the connect runs unbounded, for the kernel's own two minutes against a server that drops SYNs.
//? with no link between the entries, what does the kernel make of the `LINK_TIMEOUT`, and what bounds the connect?
let entries = [connect, timeout];
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
