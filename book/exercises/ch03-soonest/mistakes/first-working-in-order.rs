//! Picks the first working wrapper in order, as round-robin does: its reply may be due long after another one's, and the loop stalls on it.
//? of the wrappers with a reply due, is the lowest-numbered one's reply always the first to arrive?
(0..fleet.count())
    .map(WrapperId)
    .find(|&w| fleet.due(w).is_some())
