//! (written blind) Reuses a free place without advancing its generation, so an id kept from the place's previous value still names (and can remove) the new one.
//? what does a late cancel with the previous holder's id take, once its place holds a new value?
// region: 1
if let Some(index) = self.free.pop() {
    let (generation, slot) = &mut self.places[index as usize];
    *slot = Some(value);
    return Id { index, generation: *generation };
}
let index = self.places.len() as u32;
self.places.push((0, Some(value)));
Id { index, generation: 0 }
