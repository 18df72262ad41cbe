//! Calls every answer to a cancel "cancelled": a read that finished before the cancel reached it has its bytes in the buffer, and reporting `None` throws away a reply that did arrive.
//? does the read's completion always say it was cancelled, or can it carry a byte count of its own?
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
    return Ok(TakenBack { buf, read: None });
}
