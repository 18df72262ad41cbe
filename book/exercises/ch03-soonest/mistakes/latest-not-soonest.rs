//! Takes the reply due last for the one due first (`max` for `min`): the loop then waits on the slowest reply while the others sit unread.
//? is the wrapper you return the one whose reply comes first, or the one the loop would wait longest for?
(0..fleet.count())
    .map(WrapperId)
    .filter_map(|w| fleet.due(w).map(|due| (due, w)))
    .max()
    .map(|(_, w)| w)
