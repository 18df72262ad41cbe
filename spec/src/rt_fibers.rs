//! 06's fiber scheduler: the same script, each step a blocking call on a
//! fiber's own stack. A wake from another thread goes through its
//! [`Remote`](scheduler::Remote); a read waits with `Registered::wait`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::{ErrorKind, Read};
use std::rc::Rc;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use scheduler::{
    Direction, FiberError, JoinHandle, Mutex, Notification, Registered, RunError, Scheduler,
    Semaphore,
};

use crate::futures_rt::{DropLog, Fired, shuffled, timer_base, timers_verdict};
use crate::io_pair::{Peer, describe, pair};
use crate::runner::Runtime;
use crate::script::{Scenario, Step};
use crate::trace::Recorder;

/// The name of 06's scheduler in the table.
pub const FIBERS: &str = "06-scheduler";

/// 06's `Scheduler`.
#[derive(Debug, Clone, Copy)]
pub struct Fibers06;

/// The client end: registered with the reactor, and what was read of a
/// line so far.
struct Conn {
    stream: Registered<mio::net::TcpStream>,
    buffer: Vec<u8>,
}

struct Ctx {
    sched: Scheduler,
    rec: Arc<Recorder>,
    joins: RefCell<HashMap<&'static str, JoinHandle<()>>>,
    conn: RefCell<Option<Conn>>,
    peer: RefCell<Option<Peer>>,
    sem: Semaphore,
    lock: Mutex<()>,
    stop: Cell<bool>,
    marks: Cell<usize>,
}

impl Runtime for Fibers06 {
    fn name(&self) -> &'static str {
        FIBERS
    }

    fn run(&self, scenario: &Scenario, rec: Arc<Recorder>) -> Result<(), String> {
        let sched = Scheduler::new().map_err(|e| e.to_string())?;
        let ctx = Rc::new(Ctx {
            sem: Semaphore::new(&sched, 1),
            lock: Mutex::new(&sched, ()),
            sched: sched.clone(),
            rec,
            joins: RefCell::new(HashMap::new()),
            conn: RefCell::new(None),
            peer: RefCell::new(None),
            stop: Cell::new(false),
            marks: Cell::new(0),
        });
        if scenario.uses_io() {
            connect(&ctx).map_err(|e| e.to_string())?;
        }
        let steps: Rc<[Step]> = scenario.steps.clone().into();
        let root = ctx.clone();
        sched
            .spawn(move || run_fiber(&root, "main", &steps))
            .map_err(|e| e.to_string())?;
        drop(ctx);
        let result = sched.run();
        drop(sched);
        match result {
            Ok(_) => Ok(()),
            // Fibers parked for ever when the others ended: the run is
            // over, and they are torn down with it.
            Err(RunError::Deadlock(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }
}

fn connect(ctx: &Ctx) -> std::io::Result<()> {
    let (client, peer) = pair()?;
    client.set_nonblocking(true)?;
    let stream = ctx.sched.register(mio::net::TcpStream::from_std(client))?;
    *ctx.conn.borrow_mut() = Some(Conn {
        stream,
        buffer: Vec::new(),
    });
    *ctx.peer.borrow_mut() = Some(peer);
    Ok(())
}

/// Runs one fiber's script.
fn run_fiber(ctx: &Rc<Ctx>, me: &'static str, steps: &Rc<[Step]>) {
    let sched = &ctx.sched;
    let mut guards = Vec::new();
    let mut permit = None;
    let mut guard = None;
    for step in steps.iter() {
        match step {
            Step::Log(event) => ctx.rec.log(*event),
            Step::Sleep(ms) => sched.sleep(Duration::from_millis(*ms)),
            Step::Yield => sched.yield_now(),
            Step::Spawn(name, inner) => {
                let join = spawn(ctx, name, inner);
                ctx.joins.borrow_mut().insert(name, join);
            }
            Step::Detach(inner) => drop(spawn(ctx, "detached", inner)),
            Step::Join(name) => {
                let join = ctx.joins.borrow_mut().remove(name);
                let how = match join.map(JoinHandle::join) {
                    Some(Ok(())) => "ok",
                    Some(Err(FiberError::Panicked { .. })) => "panicked",
                    None => "unknown",
                };
                ctx.rec.log(format!("{name} {how}"));
            }
            Step::Abort(_) | Step::AbortSelf(_) | Step::DropSleep(_) => {
                ctx.rec.log("not expressible on fibers");
            }
            Step::Panic => panic!("scenario panic in {me}"),
            Step::WakeFromThread(times) => unblock_from_thread(sched, *times, false),
            Step::CloneWakerOnThread => unblock_from_thread(sched, 1, true),
            // A ticket kept for after the fiber ends: `WakeStored` on a
            // fiber is the remote unblock of a finished wait.
            Step::StoreWaker | Step::WakeStored => {
                let (remote, ticket) = (sched.remote(), sched.ticket());
                let _ = thread::spawn(move || remote.unblock(ticket)).join();
            }
            Step::Park => loop {
                sched.block(sched.ticket(), "nothing (parked)", None);
                ctx.rec.log("spurious poll");
            },
            Step::Guard(name) => guards.push(DropLog(ctx.rec.clone(), name)),
            Step::Timers(n) => timers(ctx, *n),
            // Only `Timers` makes these, and on fibers it does not.
            Step::TimerAt(_) => ctx.rec.log("unexpected TimerAt"),
            Step::Read => {
                let line = read_line(ctx);
                ctx.rec.log(line);
            }
            Step::PeerWrite(bytes) => {
                if let Some(p) = ctx.peer.borrow_mut().as_mut() {
                    p.write(bytes);
                }
            }
            Step::PeerClose => drop(ctx.peer.borrow_mut().take()),
            Step::PeerReset => {
                if let Some(p) = ctx.peer.borrow_mut().take() {
                    p.reset();
                }
            }
            Step::Reconnect => {
                drop(ctx.conn.borrow_mut().take());
                drop(ctx.peer.borrow_mut().take());
                if let Err(e) = connect(ctx) {
                    ctx.rec.log(format!("reconnect failed: {e}"));
                }
            }
            Step::Acquire => permit = Some(ctx.sem.acquire()),
            Step::Release => permit = None,
            Step::Lock => guard = Some(ctx.lock.lock()),
            Step::Unlock => guard = None,
            Step::Mark => ctx.marks.set(ctx.marks.get() + 1),
            Step::WaitQueued(n) => {
                while ctx.sem.waiting() + ctx.lock.waiting() + ctx.marks.get() < *n {
                    sched.yield_now();
                }
            }
            Step::SpinUntilStop => {
                while !ctx.stop.get() {
                    sched.yield_now();
                }
            }
            Step::Stop => ctx.stop.set(true),
        }
    }
    drop((permit, guard));
}

fn spawn(ctx: &Rc<Ctx>, name: &'static str, steps: &[Step]) -> JoinHandle<()> {
    let (ctx2, steps): (Rc<Ctx>, Rc<[Step]>) = (ctx.clone(), steps.to_vec().into());
    ctx.sched
        .spawn(move || run_fiber(&ctx2, name, &steps))
        .expect("a fiber's stack")
}

/// Blocks this fiber; another thread unblocks it `times` times before
/// the fiber has switched out (the loop reads the unblocks only then).
fn unblock_from_thread(sched: &Scheduler, times: u32, cloned: bool) {
    let (remote, ticket) = (sched.remote(), sched.ticket());
    let _ = thread::spawn(move || {
        let remote = if cloned { remote.clone() } else { remote };
        for _ in 0..times {
            remote.unblock(ticket);
        }
    })
    .join();
    sched.block(ticket, "a thread", None);
}

/// `n` fibers, one sleep each, to deadlines shuffled over 0-9 ms after a
/// base set once all are spawned ([`timer_base`]: a deadline must not
/// pass before its fiber sleeps).
fn timers(ctx: &Rc<Ctx>, n: usize) {
    let spawning = Instant::now();
    let base: Rc<Cell<Option<Instant>>> = Rc::new(Cell::new(None));
    let go = Rc::new(Notification::new(&ctx.sched));
    let fired = Rc::new(RefCell::new(Vec::with_capacity(n)));
    let joins: Vec<JoinHandle<()>> = (0..n)
        .map(|i| {
            let ms = shuffled(i, n);
            let (sched, base, go, fired) =
                (ctx.sched.clone(), base.clone(), go.clone(), fired.clone());
            ctx.sched
                .spawn(move || {
                    let base = loop {
                        match base.get() {
                            Some(base) => break base,
                            None => go.wait(),
                        }
                    };
                    let deadline = base + Duration::from_millis(ms);
                    let set = Instant::now();
                    // The deadline itself, not the time left: a thread
                    // preempted between the two readings of the clock
                    // would set a later timer than asked.
                    sched.sleep_until(deadline);
                    fired.borrow_mut().push(Fired {
                        deadline,
                        set,
                        woke: Instant::now(),
                    });
                })
                .expect("a fiber's stack")
        })
        .collect();
    base.set(Some(timer_base(spawning)));
    go.notify_all();
    for join in joins {
        let _ = join.join();
    }
    ctx.rec.log(timers_verdict(&fired.borrow(), n, false));
}

/// One line from the connection, waiting on the reactor between reads.
fn read_line(ctx: &Ctx) -> String {
    let mut slot = ctx.conn.borrow_mut();
    let Some(conn) = slot.as_mut() else {
        return "no connection".to_owned();
    };
    let mut chunk = [0u8; 512];
    loop {
        if let Some(end) = conn.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = conn.buffer.drain(..=end).collect();
            return describe(Ok(line.len()), &String::from_utf8_lossy(&line));
        }
        match conn.stream.get_mut().read(&mut chunk) {
            Ok(0) => return describe(Ok(0), ""),
            Ok(n) => conn.buffer.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if let Err(e) = conn.stream.wait(Direction::Readable, None) {
                    return format!("error: {e}");
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return describe(Err(e), ""),
        }
    }
}
