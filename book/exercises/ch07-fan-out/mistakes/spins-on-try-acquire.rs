//! Takes the permit with `try_acquire` in a loop, yielding between tries: the waiting fibers never sleep, they take turns asking, and burn the CPU for as long as the fetch ahead of them lasts.
//? while a fiber waits for a permit, does it sleep, or keep asking and take the CPU?
items
    .into_iter()
    .map(|item| {
        let (sched2, permits) = (sched.clone(), permits.clone());
        sched
            .spawn(move || {
                let _permit = loop {
                    if let Some(permit) = permits.try_acquire() {
                        break permit;
                    }
                    sched2.yield_now();
                };
                fetch(&sched2, server, &item)
            })
            .expect("a stack for the fiber")
    })
    .collect()
