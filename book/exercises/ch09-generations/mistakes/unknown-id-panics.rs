//! (written blind) Indexes the places directly, so an unknown id (a place the table never made, e.g. from garbage user_data) panics instead of returning None.
//? what does `remove` do with an id whose index the table never made, say one read from garbage `user_data`?
// region: 2
let (generation, slot) = &mut self.places[id.index as usize];
if *generation != id.generation {
    return None;
}
let value = slot.take()?;
self.free.push(id.index);
Some(value)
