//! Bumps the generation with a plain `+ 1`: a place that has held 2^32 values overflows (a panic in a debug build, a wrap only by luck in release), where the generation should wrap round to 0 and go on.
//? what does `place.0 += 1` do to a place that has already held `u32::MAX` values?
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
