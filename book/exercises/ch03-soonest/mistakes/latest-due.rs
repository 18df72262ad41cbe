//! (written blind) Picks the working wrapper whose reply is due last (max instead of min), so the loop blocks on the slowest reply while earlier ones sit unread.
//? of the due times you compare, which one does your `soonest` pick: the earliest or the latest?
// region: 1
(0..fleet.count())
    .map(WrapperId)
    .filter_map(|w| fleet.due(w).map(|due| (due, w.0)))
    .max()
    .map(|(_, w)| WrapperId(w))
