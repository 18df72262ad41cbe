//! (written blind) Removes by place alone without comparing generations, so a stale id takes out the value that now holds its place (another lane's read).
// region: 2
let (_, slot) = self.places.get_mut(id.index as usize)?;
let value = slot.take()?;
self.free.push(id.index);
Some(value)
