//! (written blind) Takes the permit only after the fetch returns, so the fetches themselves are not bounded at all.
//? while the fetch itself runs, is your fiber holding a permit?
items
    .into_iter()
    .map(|item| {
        let (sched2, permits) = (sched.clone(), permits.clone());
        sched
            .spawn(move || {
                let outcome = fetch(&sched2, server, &item);
                let _permit = permits.acquire();
                outcome
            })
            .expect("spawn a fetch fiber")
    })
    .collect()
