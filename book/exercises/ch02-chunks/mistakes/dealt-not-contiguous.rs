//! (written blind) Deals the items round-robin like fork::partition instead of cutting contiguous chunks, so the sizes are right but chunk 0 holds items 0,3,6 rather than 0,1,2.
//? which items land in chunk 0: the first few of the list, or every `n`-th one?
// region: 1
let mut out: Vec<Vec<T>> = (0..n).map(|_| Vec::new()).collect();
for (i, item) in items.into_iter().enumerate() {
    out[i % n].push(item);
}
out
