//! When no wrapper is idle, disposes of the wrappers in turn instead of the soonest reply: that is round-robin again, with its head-of-line stalls.
//? when every wrapper is busy, which reply does your loop wait for: the next in turn, or the one due first?
// region: 2
let mut next = 0;
for item in items {
    let idle = loop {
        if let Some(w) = (0..fleet.count())
            .map(WrapperId)
            .find(|&w| !fleet.is_working(w))
        {
            break w;
        }
        let w = WrapperId(next % fleet.count());
        next += 1;
        fleet.dispose(w)?;
    };
    fleet.start(idle, item)?;
}
while let Some(w) = soonest(fleet) {
    fleet.dispose(w)?;
}
Ok(())
