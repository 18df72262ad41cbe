//! (written blind) Returns from inside the loop over a batch as soon as the read's completion turns up, so completions of other operations later in the same batch are dropped instead of going to `others`.
//? when the read's completion comes in the middle of a batch, what happens to the completions after it?
ring.cancel(read)?;
let mut done = Vec::new();
loop {
    ring.submit_and_wait()?;
    ring.reap(&mut done);
    for completion in done.drain(..) {
        if completion.id != read {
            others.push(completion);
            continue;
        }
        let Op::Recv(buf) = completion.op else {
            return Err(io::Error::other("the read's completion is not a recv"));
        };
        let read = match completion.result {
            Ok(n) => Some(n),
            Err(e) if e.raw_os_error() == Some(125) => None,
            Err(e) => return Err(e),
        };
        return Ok(TakenBack { buf, read });
    }
}
