//! (written blind) Gives the extra items to the last `len % n` chunks instead of the first, so 7 among 3 becomes [0,1],[2,3],[4,5,6] instead of [0,1,2],[3,4],[5,6].
//? when `len % n` is not zero, which chunks do the docs say get one item more?
// region: 1
let base = items.len() / n;
let extra = items.len() % n;
let mut out: Vec<Vec<T>> = (0..n).map(|_| Vec::new()).collect();
let mut iter = items.into_iter();
for (i, chunk) in out.iter_mut().enumerate() {
    let size = base + usize::from(i >= n - extra);
    chunk.extend(iter.by_ref().take(size));
}
out
