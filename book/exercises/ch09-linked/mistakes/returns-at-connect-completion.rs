//! (written blind) Returns as soon as the connect's completion is in, without waiting for the timeout's, so a completion is left unread in the ring and the caller drops the timespec the kernel may still be using.
//? once the connect's completion is in, is the kernel done with the timespec, and what is left in the ring?
let connect = connect.flags(squeue::Flags::IO_LINK);
unsafe {
    let mut sq = ring.submission();
    sq.push(&connect).map_err(|_| io::Error::other("submission queue full"))?;
    sq.push(&timeout).map_err(|_| io::Error::other("submission queue full"))?;
}
loop {
    ring.submit_and_wait(1)?;
    let mut completions = ring.completion();
    if let Some(cqe) = completions.find(|cqe| cqe.user_data() == CONNECT) {
        return Ok(cqe.result());
    }
}
