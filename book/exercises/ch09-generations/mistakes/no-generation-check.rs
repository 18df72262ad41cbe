//! Removes by place alone, without comparing generations: a stale id, kept past its value's removal, takes whatever value holds the place now.
//? what does an id kept after its value was removed take from its place once another value lives there?
// region: 2
let place = self.places.get_mut(id.index as usize)?;
let value = place.1.take()?;
self.free.push(id.index);
Some(value)
