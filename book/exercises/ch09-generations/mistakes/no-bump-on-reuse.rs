//! Hands out a freed place without bumping its generation: the new holder's id equals the old one, so a late cancel with the old id takes the new holder's value.
//? when a freed place gets a new value, how can the old holder's id be told apart from the new one's?
match self.free.pop() {
    Some(index) => {
        let place = &mut self.places[index as usize];
        place.1 = Some(value);
        Id {
            index,
            generation: place.0,
        }
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
