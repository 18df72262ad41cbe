//! (written blind) Always makes a new place and ignores the free list, so the table grows with every operation and a removed value's place never goes to the next one.
//? when `insert` runs, does it ever look at the places that `remove` gave back?
// region: 1
let index = self.places.len() as u32;
self.places.push((0, Some(value)));
Id { index, generation: 0 }
