//! Gives every chunk `len / n` items and the whole remainder to the last one: with 10 items in 4 chunks that is 2, 2, 2 and 4, not sizes that differ by at most one.
//? with 10 items in 4 chunks, how many land in your last chunk compared with the others?
let base = items.len() / n;
let mut rest = items.into_iter();
let mut parts: Vec<Vec<T>> = (0..n - 1)
    .map(|_| rest.by_ref().take(base).collect())
    .collect();
parts.push(rest.collect());
parts
