//! (written blind) Binds the permit to `_`, which drops it on the spot, so nothing is held during the fetch and every item fetches at once (peak = number of items, not limit).
//? how long does a value bound to `_` live, compared with one bound to `_permit`?
items
    .into_iter()
    .map(|item| {
        let (sched2, permits) = (sched.clone(), permits.clone());
        sched
            .spawn(move || {
                let _ = permits.acquire();
                fetch(&sched2, server, &item)
            })
            .expect("spawn a fetch fiber")
    })
    .collect()
