//! Binds the permit to `_`, which drops it on the spot: the fiber fetches holding nothing, and every fetch runs at once, whatever the limit.
//? when does your permit go back to the semaphore: after the fetch, or before it starts?
items
    .into_iter()
    .map(|item| {
        let (sched2, permits) = (sched.clone(), permits.clone());
        sched
            .spawn(move || {
                let _ = permits.acquire();
                fetch(&sched2, server, &item)
            })
            .expect("a stack for the fiber")
    })
    .collect()
