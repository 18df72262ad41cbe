//! (written blind) Holds the permit only while connecting and drops it before the request, so the limit bounds connects, not fetches: more than `limit` requests are in flight at once.
//? is the permit still held while the request's replies are on their way?
items
    .into_iter()
    .map(|item| {
        let (sched2, permits) = (sched.clone(), permits.clone());
        sched
            .spawn(move || {
                let (stream, _in_flight) = {
                    let _permit = permits.acquire();
                    let in_flight = InFlight::enter();
                    let stream = FiberTcpStream::connect(&sched2, server).map_err(|e| Failure::from_io(&e))?;
                    (stream, in_flight)
                };
                sync::request(&mut Conn::new(stream), &item, Phases::Two)
            })
            .expect("spawn a fetch fiber")
    })
    .collect()
