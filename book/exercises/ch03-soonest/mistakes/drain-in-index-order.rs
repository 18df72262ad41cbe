//! (written blind) Drains the last requests wrapper by wrapper in index order instead of soonest first, so at the end it waits on wrapper 0's slow reply while others' replies have arrived (stalled > 0).
//? after the last item has started, in what order do you take in the replies still on their way?
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
for w in (0..fleet.count()).map(WrapperId) {
    while fleet.is_working(w) {
        fleet.dispose(w)?;
    }
}
Ok(())
