//! (written blind) Returns as soon as every item has been started, without disposing of the replies still due, so the last `count` items are never recorded.
//? when the item loop ends, how many wrappers are still working, and what becomes of their items?
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
Ok(())
