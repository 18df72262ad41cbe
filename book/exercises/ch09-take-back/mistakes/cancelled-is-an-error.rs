//! Reports ECANCELED as an error: a cancel that caught the read is the outcome that was asked for, and an error carries no buffer, so the one the caller wanted back is dropped.
//? when the cancel catches the read, is that a failure of `take_back`, and where does the buffer go then?
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
    let Op::Recv(buf) = completion.op else {
        return Err(io::Error::other("take_back is for reads"));
    };
    let n = completion.result?;
    return Ok(TakenBack { buf, read: Some(n) });
}
