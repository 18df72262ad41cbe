//! (written blind) Uses floor(len/n) for every chunk and dumps the whole remainder into the last one, so sizes can differ by up to n-1 (and 2 items among 3 all land in the last chunk).
//? with 2 items among 3 chunks, where do your items land, and how far apart can the sizes get?
// region: 1
let base = items.len() / n;
let mut out: Vec<Vec<T>> = Vec::new();
let mut iter = items.into_iter();
for _ in 0..n - 1 {
    out.push(iter.by_ref().take(base).collect());
}
out.push(iter.collect());
out
