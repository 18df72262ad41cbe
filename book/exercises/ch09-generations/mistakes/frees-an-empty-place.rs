//! Frees the place whether or not a value left it: an id removed twice puts its place on the free list twice, and the next two inserts are handed the same place.
//? if the same id is removed twice, how many times does its place land on the free list?
// region: 2
let place = self.places.get_mut(id.index as usize)?;
if place.0 != id.generation {
    return None;
}
self.free.push(id.index);
place.1.take()
