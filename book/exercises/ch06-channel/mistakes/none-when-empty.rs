//! Returns None as soon as the queue is empty, without waiting: an empty queue is not a closed channel, and a value sent a moment later is never received.
//? is an empty queue the same thing as a closed channel?
self.queue.borrow_mut().pop_front()
