//! Keeps the other completions newest first (inserting each at the front): their owners must see them in the order the kernel gave them, as a queue would.
//? in what order do the other completions reach their owners, compared with the order the kernel gave them?
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
            others.insert(0, completion);
        }
    }
    let Some(completion) = mine else {
        continue;
    };
    let cancelled = completion.cancelled();
    let Op::Recv(buf) = completion.op else {
        return Err(io::Error::other("take_back is for reads"));
    };
    return match completion.result {
        Ok(n) => Ok(TakenBack { buf, read: Some(n) }),
        Err(_) if cancelled => Ok(TakenBack { buf, read: None }),
        Err(e) => Err(e),
    };
}
