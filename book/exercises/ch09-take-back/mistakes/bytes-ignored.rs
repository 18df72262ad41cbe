//! (written blind) Assumes a cancelled read always ends with ECANCELED and reports `read: None` whatever its completion says, so bytes that arrived before the cancel are in the buffer but reported as never read.
//? if the read's bytes came before the cancel reached it, what does its completion say, and what do you report?
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
        return Ok(TakenBack { buf, read: None });
    }
}
