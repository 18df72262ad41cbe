//! Takes the first completion that arrives as the read's: it may be another lane's read, with that lane's buffer and bytes, while this read still holds its own buffer in the kernel.
//? is the first completion to arrive the read's own, and how can you tell?
ring.cancel(read)?;
let mut arrived = Vec::new();
loop {
    ring.submit_and_wait()?;
    ring.reap(&mut arrived);
    if arrived.is_empty() {
        continue;
    }
    let completion = arrived.remove(0);
    others.append(&mut arrived);
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
