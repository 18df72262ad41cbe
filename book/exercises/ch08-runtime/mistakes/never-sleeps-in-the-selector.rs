//! A spinning executor: the loop asks the selector with a zero timeout every turn, so with nothing to do it goes round and round instead of sleeping until a socket, a wake or the next timer; the answers are right, the CPU is all used.
//? with nothing ready and nothing due, what does your loop do between one turn and the next while it waits?
// region: 4
let mut events = Vec::new();
if let Err(e) = self
    .selector
    .borrow_mut()
    .wait(&mut events, Some(Duration::ZERO))
{
    panic!("the selector failed: {e}");
}
for event in events {
    if event.token == BELL {
        while matches!((&self.bell).read(&mut [0; 64]), Ok(n) if n > 0) {}
    } else if let Some(Some(waker)) = self
        .readers
        .borrow_mut()
        .get_mut(&event.token)
        .map(Option::take)
    {
        waker.wake();
    }
}
