//! (written blind) Takes the value out but never puts the place on the free list, so the place is never reused and the table grows with every operation.
//? how far does the table grow over a long run, if a removed value's place is never offered again?
// region: 2
let (generation, slot) = self.places.get_mut(id.index as usize)?;
if *generation != id.generation {
    return None;
}
slot.take()
