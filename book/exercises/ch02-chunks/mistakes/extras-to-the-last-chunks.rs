//! Gives the one-more items to the last `len % n` chunks instead of the first: the sizes still differ by at most one, but not as the docs promise (the first `len % n` chunks get one more), so a caller that relies on it misplaces items.
//? for 7 items in 3 chunks, is your first chunk `[0, 1, 2]` or `[0, 1]`?
let (base, extra) = (items.len() / n, items.len() % n);
let mut rest = items.into_iter();
(0..n)
    .map(|k| {
        let size = base + usize::from(k >= n - extra);
        rest.by_ref().take(size).collect()
    })
    .collect()
