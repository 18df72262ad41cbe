//! (written blind) Pushes the timeout before the connect (with the connect flagged IO_LINK), so the LINK_TIMEOUT has no linked operation before it and the connect is linked to nothing: the limit never applies.
//? in your submission order, which entry comes just before the `LINK_TIMEOUT`, and what is the connect linked to?
let connect = connect.flags(squeue::Flags::IO_LINK);
unsafe {
    let mut sq = ring.submission();
    sq.push(&timeout).map_err(|_| io::Error::other("submission queue full"))?;
    sq.push(&connect).map_err(|_| io::Error::other("submission queue full"))?;
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
