//! Cuts chunks of `len / n` rounded up, as `slice::chunks` does: the last chunks come out short or empty, so sizes differ by more than one.
//? with 10 items in 4 chunks of `len / n` rounded up, what is left for the last chunk?
let size = items.len().div_ceil(n).max(1);
let mut rest = items.into_iter();
(0..n).map(|_| rest.by_ref().take(size).collect()).collect()
