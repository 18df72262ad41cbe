//! (written blind) Takes the value out but never puts the place on the free list, so the place is never reused and the table grows with every operation.
// region: 2
let (generation, slot) = self.places.get_mut(id.index as usize)?;
if *generation != id.generation {
    return None;
}
slot.take()
