//! Takes the value but never puts its place on the free list: nothing is ever reused, and the table grows by one place per operation.
//? after `remove` takes a value out, how does its place ever reach the next insert?
// region: 2
let place = self.places.get_mut(id.index as usize)?;
if place.0 != id.generation {
    return None;
}
place.1.take()
