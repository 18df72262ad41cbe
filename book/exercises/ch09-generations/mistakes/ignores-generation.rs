//! (written blind) Removes by place alone without comparing generations, so a stale id takes out the value that now holds its place (another lane's read).
//? when a stale id points at a place that now holds another value, what tells `remove` the id is stale?
// region: 2
let (_, slot) = self.places.get_mut(id.index as usize)?;
let value = slot.take()?;
self.free.push(id.index);
Some(value)
