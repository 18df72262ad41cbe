//! Takes each permit in the spawning loop and hands it to the fiber: spawning then waits for a fetch to finish, so the caller is held up by the very fibers it is starting.
//? which fiber waits for the permit in your code: the one that fetches, or the one spawning the rest?
items
    .into_iter()
    .map(|item| {
        let permit = permits.acquire();
        let sched2 = sched.clone();
        sched
            .spawn(move || {
                let _permit = permit;
                fetch(&sched2, server, &item)
            })
            .expect("a stack for the fiber")
    })
    .collect()
