//! (written blind) Keeps the result of whichever completion is read last without looking at user_data, so a connect that succeeded is reported with the cancelled timeout's -ECANCELED (a timeout), and a timed-out one with -ETIME.
//? of the two completions you read, how do you know which one carries the connect's result?
let connect = connect.flags(squeue::Flags::IO_LINK);
unsafe {
    let mut sq = ring.submission();
    sq.push(&connect).map_err(|_| io::Error::other("submission queue full"))?;
    sq.push(&timeout).map_err(|_| io::Error::other("submission queue full"))?;
}
let mut result = 0;
let mut seen = 0;
while seen < 2 {
    ring.submit_and_wait(2 - seen)?;
    for cqe in ring.completion() {
        seen += 1;
        result = cqe.result();
    }
}
Ok(result)
