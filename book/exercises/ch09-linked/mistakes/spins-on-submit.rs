//! (written blind) Submits without waiting and then polls the completion queue in a loop, a busy-wait that burns a CPU for the whole connect (up to the limit) instead of sleeping in the kernel.
//? against a server that drops SYNs, how much CPU does your wait burn until the limit passes?
let connect = connect.flags(squeue::Flags::IO_LINK);
unsafe {
    let mut sq = ring.submission();
    sq.push(&connect).map_err(|_| io::Error::other("submission queue full"))?;
    sq.push(&timeout).map_err(|_| io::Error::other("submission queue full"))?;
}
ring.submit()?;
let mut result = None;
let mut seen = 0;
while seen < 2 {
    for cqe in ring.completion() {
        seen += 1;
        if cqe.user_data() == CONNECT {
            result = Some(cqe.result());
        }
    }
}
result.ok_or_else(|| io::Error::other("no completion for the connect"))
