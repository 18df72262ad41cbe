//! (written blind) Spawns the fibers from the last item to the first, so the handles (and the outcomes fetch_all returns) come back in reverse item order.
//? `fetch_all` returns the outcomes in the order of your handles: is that the item order?
items
    .into_iter()
    .rev()
    .map(|item| {
        let (sched2, permits) = (sched.clone(), permits.clone());
        sched
            .spawn(move || {
                let _permit = permits.acquire();
                fetch(&sched2, server, &item)
            })
            .expect("spawn a fetch fiber")
    })
    .collect()
