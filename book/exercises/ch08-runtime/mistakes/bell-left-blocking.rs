//! (written blind) The bell is registered with the selector but its two sockets are left blocking, so draining the bell to WouldBlock blocks the loop forever on the read after the last byte (and a burst of wakes can block a waking thread on a full socket).
//? when the loop reads the bell until nothing is left, what does that last `read` do on a blocking socket?
// region: 1
let (bell, ring) = UnixStream::pair()?;
let mut selector = Selector::new(Backend::Epoll)?;
// The bell's read end, under its own token: a byte written to `ring` ends a wait.
selector.add(bell.as_fd(), BELL, Interest::Read)?;
let ready = Arc::new(ReadyQueue {
    ids: Mutex::new(VecDeque::new()),
    bell: ring,
});
Ok(Runtime {
    inner: Rc::new(Inner {
        tasks: RefCell::new(HashMap::new()),
        next_id: Cell::new(ROOT + 1),
        ready,
        bell,
        timers: RefCell::new(BinaryHeap::new()),
        sleepers: RefCell::new(HashMap::new()),
        selector: RefCell::new(selector),
        readers: RefCell::new(HashMap::new()),
        yielded: RefCell::new(Vec::new()),
    }),
})
