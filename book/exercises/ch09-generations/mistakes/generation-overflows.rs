//! (written blind) Advances the generation with `+= 1`, which panics (debug) once a place has held u32::MAX values instead of wrapping around to 0.
//? after 2^32 values in one place, what comes after the largest generation a `u32` can hold?
// region: 1
if let Some(index) = self.free.pop() {
    let (generation, slot) = &mut self.places[index as usize];
    *generation += 1;
    *slot = Some(value);
    return Id { index, generation: *generation };
}
let index = self.places.len() as u32;
self.places.push((0, Some(value)));
Id { index, generation: 0 }
