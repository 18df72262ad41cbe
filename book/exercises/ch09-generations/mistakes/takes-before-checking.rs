//! Takes the value out before checking the generation: a stale id is refused, but the new holder's value has already left its place and is dropped.
//? when a stale id is refused, where has the current holder's value gone by then?
// region: 2
let place = self.places.get_mut(id.index as usize)?;
let value = place.1.take()?;
if place.0 != id.generation {
    return None;
}
self.free.push(id.index);
Some(value)
