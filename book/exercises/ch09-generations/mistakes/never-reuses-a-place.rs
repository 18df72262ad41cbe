//! Makes a new place for every value and never looks at the free list: the table grows by one place per operation for as long as the program runs, though only a few are ever in flight.
//? with only a few values in flight at a time, why does the table still grow on every insert?
let index = u32::try_from(self.places.len()).expect("fewer than 2^32 places");
self.places.push((0, Some(value)));
Id {
    index,
    generation: 0,
}
