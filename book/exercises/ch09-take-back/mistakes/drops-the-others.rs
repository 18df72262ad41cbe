//! Drops the completions that are not the read's: their owners wait for them for ever, and the buffers they carry are freed with them.
//? who is waiting for the completions that are not the read's, and where do they go from here?
ring.cancel(read)?;
let mut arrived = Vec::new();
loop {
    ring.submit_and_wait()?;
    ring.reap(&mut arrived);
    let Some(at) = arrived.iter().position(|c| c.id == read) else {
        arrived.clear();
        continue; // Not yet: the read still holds the buffer.
    };
    let completion = arrived.swap_remove(at);
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
