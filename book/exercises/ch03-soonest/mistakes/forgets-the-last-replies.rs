//! Returns once every item has started, without disposing of the replies still on their way: the last items never finish.
//? once every item has started, who takes in the replies still on their way?
// region: 2
for item in items {
    let idle = loop {
        if let Some(w) = (0..fleet.count())
            .map(WrapperId)
            .find(|&w| !fleet.is_working(w))
        {
            break w;
        }
        let w = soonest(fleet).expect("no wrapper is idle, so one is working");
        fleet.dispose(w)?;
    };
    fleet.start(idle, item)?;
}
Ok(())
