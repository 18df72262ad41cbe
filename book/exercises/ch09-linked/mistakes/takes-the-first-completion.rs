//! Takes the first completion as the connect's, without looking at its `user_data`: when the limit passes, the timeout's `ETIME` may come first and is reported as the connect's result, and the second completion is never waited for.
//? is the first completion you read always the connect's, and who waits for the one still to come?
let entries = [connect.flags(squeue::Flags::IO_LINK), timeout];
// SAFETY: (wrongly) claims the kernel is done with both pointers after one
// completion; the other is still to come.
unsafe { ring.submission().push_multiple(&entries) }
    .map_err(|_| io::Error::other("a fresh ring has room for two entries"))?;
ring.submit_and_wait(1)?;
let first = ring.completion().next();
first
    .map(|cqe| cqe.result())
    .ok_or_else(|| io::Error::other("no completion after waiting for one"))
