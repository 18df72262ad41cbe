//! (written blind) Passes the read's ECANCELED on as an error, so the ordinary outcome of a cancel fails the call and the buffer, back from the kernel, is dropped instead of returned.
//? is ECANCELED on the read's completion the outcome you asked for, or a sign that something went wrong?
ring.cancel(read)?;
let mut done = Vec::new();
loop {
    ring.submit_and_wait()?;
    ring.reap(&mut done);
    let mut found = None;
    for completion in done.drain(..) {
        if completion.id == read && found.is_none() {
            found = Some(completion);
        } else {
            others.push(completion);
        }
    }
    if let Some(completion) = found {
        let Op::Recv(buf) = completion.op else {
            return Err(io::Error::other("the read's completion is not a recv"));
        };
        let n = completion.result?;
        return Ok(TakenBack { buf, read: Some(n) });
    }
}
