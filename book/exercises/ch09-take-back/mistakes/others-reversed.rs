//! (written blind) Puts each other completion at the front of `others`, so their owners receive them in the reverse of the order they arrived.
//? if the kernel hands you completions x then y, which one does `others` hand to its owner first?
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
            others.insert(0, completion);
        }
    }
    if let Some(completion) = found {
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
