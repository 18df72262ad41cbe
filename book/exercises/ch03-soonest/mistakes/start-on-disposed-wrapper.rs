//! (written blind) Assumes the wrapper just disposed of is now idle and starts the next item on it, but after a HEAD's OK it is still working on the BODY, so the start is refused (Busy) with two-phase requests.
//? after you dispose of a `HEAD`'s `OK`, is that wrapper idle yet, or still busy with the `BODY`?
// region: 2
for item in items {
    let idle = (0..fleet.count()).map(WrapperId).find(|&w| !fleet.is_working(w));
    let w = match idle {
        Some(w) => w,
        None => {
            let w = soonest(fleet).expect("no idle wrapper, so one is working");
            fleet.dispose(w)?;
            w
        }
    };
    fleet.start(w, item)?;
}
while let Some(w) = soonest(fleet) {
    fleet.dispose(w)?;
}
Ok(())
