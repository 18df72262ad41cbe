//! Treats ECANCELED as the only answer a cancelled read may give: a read whose bytes arrived before the cancel completes with its byte count, and calling that an error loses both the bytes and the buffer.
//? besides ECANCELED, what else may the read's completion say after you asked the kernel to cancel it?
ring.cancel(read)?;
let mut arrived = Vec::new();
loop {
    ring.submit_and_wait()?;
    ring.reap(&mut arrived);
    let mut mine = None;
    for completion in arrived.drain(..) {
        if completion.id == read {
            mine = Some(completion);
        } else {
            others.push(completion);
        }
    }
    let Some(completion) = mine else {
        continue; // Not yet: the read still holds the buffer.
    };
    if !completion.cancelled() {
        return Err(io::Error::other("the cancel did not cancel the read"));
    }
    let Op::Recv(buf) = completion.op else {
        return Err(io::Error::other("take_back is for reads"));
    };
    return Ok(TakenBack { buf, read: None });
}
