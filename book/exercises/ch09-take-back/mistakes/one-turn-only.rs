//! (written blind) Waits one turn only, as if the cancel's own completion meant the read was over: when the read's completion comes a turn later, the call fails and the buffer is never taken back.
//? after one `submit_and_wait`, is the read's own completion surely in, or maybe only the cancel's?
ring.cancel(read)?;
let mut done = Vec::new();
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
let Some(completion) = found else {
    return Err(io::Error::other("the read did not complete after its cancel"));
};
let Op::Recv(buf) = completion.op else {
    return Err(io::Error::other("the read's completion is not a recv"));
};
let read = match completion.result {
    Ok(n) => Some(n),
    Err(e) if e.raw_os_error() == Some(125) => None,
    Err(e) => return Err(e),
};
Ok(TakenBack { buf, read })
