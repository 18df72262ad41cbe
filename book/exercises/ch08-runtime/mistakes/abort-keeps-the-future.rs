//! Abort marks the task cancelled and wakes its joiner, but keeps its future: its destructors run only when the runtime is dropped, long after the joiner was told it was cancelled (a guard it holds, a lock or a socket, stays held).
//? when the joiner hears `Cancelled`, has the aborted future already let go of the guards it holds?
// region: 11
if self.task.ended.get().is_some() {
    return;
}
self.task.end(Joined::Cancelled);
