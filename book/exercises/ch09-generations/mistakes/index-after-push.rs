//! (written blind) Reads the new place's index after pushing it, so a value stored in a new place gets an id one past its place (names nothing, or the next place's value).
//? when a value goes into a new place, which index does its id name: the place it went into, or the next?
// region: 1
if let Some(index) = self.free.pop() {
    let (generation, slot) = &mut self.places[index as usize];
    *generation = generation.wrapping_add(1);
    *slot = Some(value);
    return Id { index, generation: *generation };
}
self.places.push((0, Some(value)));
Id { index: self.places.len() as u32, generation: 0 }
