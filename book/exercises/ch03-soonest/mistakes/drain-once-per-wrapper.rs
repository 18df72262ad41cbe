//! (written blind) At the end disposes of one reply per working wrapper and stops, so a wrapper that answered HEAD still has its BODY pending and those items are never recorded.
//? with two-phase requests, how many replies may one wrapper still owe after the last item starts?
// region: 2
for item in items {
    loop {
        if let Some(w) = (0..fleet.count()).map(WrapperId).find(|&w| !fleet.is_working(w)) {
            fleet.start(w, item)?;
            break;
        }
        let w = soonest(fleet).expect("no idle wrapper, so one is working");
        fleet.dispose(w)?;
    }
}
for _ in 0..fleet.count() {
    if let Some(w) = soonest(fleet) {
        fleet.dispose(w)?;
    }
}
Ok(())
