//! Waits until nothing at all is in flight before returning: another lane's read, whose peer is silent, stays in the kernel, so take_back waits for it forever.
//? are you waiting for the read's completion, or for every operation in the ring, a silent lane's too?
ring.cancel(read)?;
let mut arrived = Vec::new();
let mut mine = None;
while ring.in_flight() > 0 {
    ring.submit_and_wait()?;
    ring.reap(&mut arrived);
    for completion in arrived.drain(..) {
        if completion.id == read {
            mine = Some(completion);
        } else {
            others.push(completion);
        }
    }
}
let completion = mine.ok_or_else(|| io::Error::other("the read never completed"))?;
let cancelled = completion.cancelled();
let Op::Recv(buf) = completion.op else {
    return Err(io::Error::other("take_back is for reads"));
};
match completion.result {
    Ok(n) => Ok(TakenBack { buf, read: Some(n) }),
    Err(_) if cancelled => Ok(TakenBack { buf, read: None }),
    Err(e) => Err(e),
}
