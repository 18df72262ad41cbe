//! Bumps the generation with a plain `+ 1`: a place that has held 2^32 values overflows (a panic in a debug build, a wrap only by luck in release), where the generation should wrap round to 0 and go on.
match self.free.pop() {
    Some(index) => {
        let place = &mut self.places[index as usize];
        place.0 += 1;
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
