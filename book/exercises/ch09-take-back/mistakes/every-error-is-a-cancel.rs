//! Calls every failed read "cancelled": a read that failed on its own (a reset, a socket that is no socket) hands back its buffer as if the cancel had stopped it, and the error that says what went wrong is lost.
//? when the read failed on its own, say on a reset, which error does the caller get to see?
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
    return match completion.result {
        Ok(n) => Ok(TakenBack { buf, read: Some(n) }),
        Err(_) => Ok(TakenBack { buf, read: None }),
    };
}
