//! (written blind) Waits for a single completion and treats a missing connect completion as success (0), so when the timeout's completion comes first the caller gets a "connected" socket that is not.
//? if the only completion read so far is the timeout's, what does your function say about the connect?
let connect = connect.flags(squeue::Flags::IO_LINK);
unsafe {
    let mut sq = ring.submission();
    sq.push(&connect).map_err(|_| io::Error::other("submission queue full"))?;
    sq.push(&timeout).map_err(|_| io::Error::other("submission queue full"))?;
}
ring.submit_and_wait(1)?;
let result = ring
    .completion()
    .find(|cqe| cqe.user_data() == CONNECT)
    .map(|cqe| cqe.result())
    .unwrap_or(0);
Ok(result)
