//! (written blind) Puts IO_LINK on the timeout instead of the connect, so the LINK_TIMEOUT is linked to nothing before it (the kernel rejects it) and the connect runs with no time limit: a server that drops SYNs hangs the caller.
//? `IO_LINK` ties an entry to which other entry, and which entry does a `LINK_TIMEOUT` put a limit on?
let timeout = timeout.flags(squeue::Flags::IO_LINK);
unsafe {
    let mut sq = ring.submission();
    sq.push(&connect).map_err(|_| io::Error::other("submission queue full"))?;
    sq.push(&timeout).map_err(|_| io::Error::other("submission queue full"))?;
}
let mut result = None;
let mut seen = 0;
while seen < 2 {
    ring.submit_and_wait(2 - seen)?;
    for cqe in ring.completion() {
        seen += 1;
        if cqe.user_data() == CONNECT {
            result = Some(cqe.result());
        }
    }
}
result.ok_or_else(|| io::Error::other("no completion for the connect"))
