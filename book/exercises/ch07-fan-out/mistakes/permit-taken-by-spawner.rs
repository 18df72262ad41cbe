//! (written blind) Takes each permit in the spawning loop and moves it into the fiber, so spawning itself waits for a fetch to end once `limit` are out, and the caller cannot even hold the handles of later items meanwhile.
//? once `limit` fetches are out, does your spawning loop itself have to wait?
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
            .expect("spawn a fetch fiber")
    })
    .collect()
