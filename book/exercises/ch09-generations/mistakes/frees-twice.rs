//! (written blind) Frees the place whenever the generation matches, even if it already holds nothing, so removing the same id twice puts the place on the free list twice and two later inserts share it.
//? when one place sits on the free list twice, what do the next two inserts get?
// region: 2
let (generation, slot) = self.places.get_mut(id.index as usize)?;
if *generation != id.generation {
    return None;
}
let value = slot.take();
self.free.push(id.index);
value
