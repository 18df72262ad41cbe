//! (written blind) Throws away the completions of other operations that arrive while waiting for the read, so another lane's finished read is lost and that lane waits for ever.
//? when another lane's read completes while you wait for yours, how does that lane ever hear of it?
ring.cancel(read)?;
let mut done = Vec::new();
loop {
    ring.submit_and_wait()?;
    ring.reap(&mut done);
    if let Some(at) = done.iter().position(|c| c.id == read) {
        let completion = done.swap_remove(at);
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
    done.clear();
}
