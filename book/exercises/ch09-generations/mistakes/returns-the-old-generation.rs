//! Builds the id before bumping the generation: the id handed out names the place's previous holder, so the new value cannot be reached by its own id (and the old id reaches it instead).
//? which holder of the place does the id you hand out name: the new value, or the one before it?
match self.free.pop() {
    Some(index) => {
        let place = &mut self.places[index as usize];
        let id = Id {
            index,
            generation: place.0,
        };
        place.0 = place.0.wrapping_add(1);
        place.1 = Some(value);
        id
    }
    None => {
        let index = u32::try_from(self.places.len()).expect("fewer than 2^32 places");
        self.places.push((0, Some(value)));
        Id {
            index,
            generation: 0,
        }
    }
}
