//! (written blind) Cuts chunks of ceil(len/n) items, so 7 among 3 gives [3,3,1] and 4 among 3 gives only two chunks instead of always n chunks whose sizes differ by at most one.
//? with 4 items and `n` = 3, how many chunks does your code return, and how big is each?
// region: 1
let size = ((items.len() + n - 1) / n).max(1);
let mut out: Vec<Vec<T>> = Vec::new();
let mut current = Vec::new();
for item in items {
    current.push(item);
    if current.len() == size {
        out.push(std::mem::take(&mut current));
    }
}
if !current.is_empty() {
    out.push(current);
}
out
