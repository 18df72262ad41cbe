//! Takes the value out before checking the generation: a stale id is refused, but the new holder's value has already left its place and is dropped.
// region: 2
let place = self.places.get_mut(id.index as usize)?;
let value = place.1.take()?;
if place.0 != id.generation {
    return None;
}
self.free.push(id.index);
Some(value)
