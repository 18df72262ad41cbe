//! (written blind) Uses try_acquire and fails the item as refused when no permit is free, instead of waiting in line, so every item beyond the first `limit` fails.
//? when every permit is taken, does your item fail at once, though the server never refused it?
items
    .into_iter()
    .map(|item| {
        let (sched2, permits) = (sched.clone(), permits.clone());
        sched
            .spawn(move || match permits.try_acquire() {
                Some(_permit) => fetch(&sched2, server, &item),
                None => Err(Failure::new(
                    testbed::outcome::ErrorKind::Refused,
                    "too many fetches at once",
                )),
            })
            .expect("spawn a fetch fiber")
    })
    .collect()
