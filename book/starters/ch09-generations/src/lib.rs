//! Chapter 9, exercise 3: ids that go stale.
//!
//! The ring names each operation by the 64-bit `user_data` it was
//! submitted with, and `08-uring` makes it the operation's place in a
//! table. When the operation completes, its place is freed, and the next
//! operation takes it. An id kept past that moment, by a lane that asks to
//! cancel "its" read a turn too late, would name whoever holds the place
//! now: the cancel would hit another lane's read.
//!
//! So an id is a place *and a generation*: the place's count of how many
//! values it has held. Write [`Table::insert`] and [`Table::remove`] so
//! that a stale id names nothing.
//!
//! A removed value's place goes to the next one, and the old id names
//! nothing any more:
//!
//! ```
//! use ch09_generations::{Id, Table};
//!
//! let mut table = Table::new();
//! let first = table.insert("a");
//! assert_eq!(table.remove(first), Some("a"), "the value its id names");
//! let second = table.insert("b");
//! assert_eq!((second.index, table.places()), (first.index, 1), "the same place");
//! assert_eq!(table.get(first), None, "a stale id names nothing");
//! assert_eq!(table.remove(first), None, "and takes nothing");
//! assert_eq!(table.get(second), Some(&"b"), "the new id names the new value");
//! assert_eq!(Id::from_user_data(second.to_user_data()), second, "an id survives the trip through user_data");
//! ```
#![allow(unused)]

// When the tests fail the way a known mistake does, they end with a
// question that points at the idea it misses.
testbed::hint_on_failure!("ch09-generations");

/// A value's name in a [`Table`]: its place and that place's generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Id {
    /// The place.
    pub index: u32,
    /// How many values the place had held before this one.
    pub generation: u32,
}

impl Id {
    /// The id as the kernel carries it: generation high, place low.
    pub fn to_user_data(self) -> u64 {
        (u64::from(self.generation) << 32) | u64::from(self.index)
    }

    /// The id a completion's `user_data` names.
    pub fn from_user_data(data: u64) -> Id {
        Id {
            index: data as u32,
            generation: (data >> 32) as u32,
        }
    }
}

/// Values by id, reusing the places of removed ones.
#[derive(Debug)]
pub struct Table<T> {
    /// Each place's generation, and its value if it holds one.
    places: Vec<(u32, Option<T>)>,
    /// Places that hold nothing, to reuse before adding one.
    free: Vec<u32>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            places: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Table<T> {
    /// An empty table.
    pub fn new() -> Table<T> {
        Table::default()
    }

    /// A table of `places` free places, each at `generation`: what a
    /// long-running table looks like after `generation` values went
    /// through each place. For tests of generations near `u32::MAX`,
    /// which inserting and removing four billion times would take too
    /// long to reach.
    #[cfg(test)]
    fn worn(places: u32, generation: u32) -> Table<T> {
        Table {
            places: (0..places).map(|_| (generation, None)).collect(),
            free: (0..places).rev().collect(),
        }
    }

    /// How many places the table has made (held or free).
    pub fn places(&self) -> usize {
        self.places.len()
    }

    /// The value `id` names, if it still names one.
    pub fn get(&self, id: Id) -> Option<&T> {
        let (generation, value) = self.places.get(id.index as usize)?;
        (*generation == id.generation)
            .then_some(value.as_ref())
            .flatten()
    }

    // ANCHOR: exercise
    /// Stores `value` in a free place (a new one only when none is free)
    /// and returns its id.
    pub fn insert(&mut self, value: T) -> Id {
        // TODO: reuse a free place if there is one; what must change in a place before it is handed out again?
        todo!("reuse a free place if there is one; what must change in a place before it is handed out again?")
    }

    /// Takes out the value `id` names and frees its place; `None`, and no
    /// change, when `id` is stale (its place has moved on) or unknown.
    pub fn remove(&mut self, id: Id) -> Option<T> {
        // TODO: a stale id must take nothing, and the place must be reusable afterwards
        todo!("a stale id must take nothing, and the place must be reusable afterwards")
    }
    // ANCHOR_END: exercise
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_reused() {
        let mut table = Table::new();
        for round in 0..10 {
            let id = table.insert(round);
            assert_eq!(table.get(id), Some(&round), "a new id names its value");
            assert_eq!(
                table.remove(id),
                Some(round),
                "removing by a fresh id takes its value"
            );
        }
        assert_eq!(table.places(), 1, "one place, reused ten times");
    }

    #[test]
    fn a_stale_id_takes_nothing_from_the_next_holder() {
        let mut table = Table::new();
        let old = table.insert("lane 0's read");
        assert_eq!(
            table.remove(old),
            Some("lane 0's read"),
            "a fresh id takes its value"
        );
        // Lane 1's read takes the place.
        let new = table.insert("lane 1's read");
        assert_eq!(new.index, old.index, "the same place");
        // Lane 0's late cancel, with its old id:
        assert_eq!(table.remove(old), None, "the stale id names nothing");
    }

    #[test]
    fn a_stale_id_leaves_the_next_holders_value_in_place() {
        let mut table = Table::new();
        let old = table.insert("lane 0's read");
        table.remove(old);
        let new = table.insert("lane 1's read");
        // Lane 0's late cancel, with its old id, whatever it returns:
        let _ = table.remove(old);
        assert_eq!(
            table.get(new),
            Some(&"lane 1's read"),
            "the new holder's value is still in its place after a stale remove (check the \
             generation before taking anything out)"
        );
        assert_eq!(
            table.remove(new),
            Some("lane 1's read"),
            "the new holder's own id still takes its value"
        );
    }

    #[test]
    fn an_id_removed_twice_takes_nothing_the_second_time() {
        let mut table = Table::new();
        let id = table.insert(7);
        assert_eq!(
            table.remove(id),
            Some(7),
            "the first remove takes the value"
        );
        assert_eq!(
            table.remove(id),
            None,
            "the second remove of the same id takes nothing"
        );
        let a = table.insert(8);
        let b = table.insert(9);
        assert_ne!(a.index, b.index, "a place is freed once, not twice");
    }

    #[test]
    fn ids_survive_the_trip_through_user_data_and_differ_by_generation() {
        let mut table = Table::new();
        let first = table.insert(());
        table.remove(first);
        let second = table.insert(());
        assert_ne!(
            first.to_user_data(),
            second.to_user_data(),
            "two holders of one place have different user_data"
        );
        assert_eq!(
            Id::from_user_data(second.to_user_data()),
            second,
            "an id comes back from user_data as it went in"
        );
    }

    #[test]
    fn an_unknown_id_takes_nothing() {
        let mut table = Table::new();
        let id = table.insert("a");
        // A place the table never made (as garbage `user_data` would name).
        let unknown = Id {
            index: 7,
            generation: 0,
        };
        assert_eq!(
            table.remove(unknown),
            None,
            "an id whose place was never made names nothing"
        );
        assert_eq!(
            table.get(id),
            Some(&"a"),
            "and the value that is there stays"
        );
    }

    #[test]
    fn a_generation_wraps_after_its_last_value() {
        // One free place whose last value had generation `u32::MAX`.
        let mut table = Table::worn(1, u32::MAX);
        let id = table.insert("wrapped");
        assert_eq!(
            id.generation, 0,
            "after u32::MAX the next generation is 0: it wraps (a plain `+ 1` overflows)"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use testbed::testing::proptest_config;

        /// What the table is asked to do next.
        #[derive(Debug, Clone, Copy)]
        enum Step {
            /// Insert the next value.
            Insert,
            /// Remove by the n-th id ever handed out (live or stale).
            Remove(usize),
            /// Look up the n-th id ever handed out.
            Get(usize),
            /// Look up and remove an id the table never made.
            Unknown(u32, u32),
        }

        fn step() -> impl Strategy<Value = Step> {
            prop_oneof![
                4 => Just(Step::Insert),
                3 => any::<usize>().prop_map(Step::Remove),
                2 => any::<usize>().prop_map(Step::Get),
                1 => (any::<u32>(), any::<u32>()).prop_map(|(i, g)| Step::Unknown(i, g)),
            ]
        }

        proptest! {
            #![proptest_config(proptest_config(64))]

            #[test]
            fn the_table_matches_a_list_of_live_ids(
                worn in 0u32..4,
                // Near the top, so that generations wrap within the run.
                generation in prop_oneof![Just(0u32), (u32::MAX - 3)..=u32::MAX],
                steps in proptest::collection::vec(step(), 1..80),
            ) {
                let mut table = Table::worn(worn, generation);
                // The model: every id handed out, and which are live with
                // which value.
                let mut issued: Vec<Id> = Vec::new();
                let mut live: Vec<(Id, usize)> = Vec::new();
                let mut most_live = 0;
                let mut done = Vec::new();
                for (n, step) in steps.into_iter().enumerate() {
                    done.push(step);
                    match step {
                        Step::Insert => {
                            let id = table.insert(n);
                            prop_assert!(
                                !live.iter().any(|&(other, _)| other == id),
                                "after {:?} (from {} worn places at generation {}): insert handed out {:?}, the id of a value still in the table",
                                done, worn, generation, id
                            );
                            prop_assert!(
                                !issued.contains(&id),
                                "after {:?} (from {} worn places at generation {}): insert handed out {:?} again, so an old id names the new value",
                                done, worn, generation, id
                            );
                            issued.push(id);
                            live.push((id, n));
                            most_live = most_live.max(live.len());
                        }
                        Step::Remove(k) if !issued.is_empty() => {
                            let id = issued[k % issued.len()];
                            let expected = live.iter().position(|&(l, _)| l == id).map(|at| live.remove(at).1);
                            prop_assert_eq!(
                                table.remove(id),
                                expected,
                                "after {:?} (from {} worn places at generation {}): remove({:?}) should give {:?} (None for a stale id)",
                                done, worn, generation, id, expected
                            );
                        }
                        Step::Get(k) if !issued.is_empty() => {
                            let id = issued[k % issued.len()];
                            let expected = live.iter().find(|&&(l, _)| l == id).map(|(_, v)| v);
                            prop_assert_eq!(
                                table.get(id),
                                expected,
                                "after {:?} (from {} worn places at generation {}): get({:?}) should give {:?} (None for a stale id)",
                                done, worn, generation, id, expected
                            );
                        }
                        Step::Remove(_) | Step::Get(_) => {}
                        Step::Unknown(index, generation) => {
                            let id = Id { index, generation };
                            if !issued.contains(&id) {
                                prop_assert_eq!(
                                    table.remove(id),
                                    None,
                                    "after {:?}: remove({:?}), an id the table never made, should take nothing",
                                    done, id
                                );
                                prop_assert_eq!(
                                    table.get(id),
                                    None,
                                    "after {:?}: get({:?}), an id the table never made, should name nothing",
                                    done, id
                                );
                            }
                        }
                    }
                    for &(id, value) in &live {
                        prop_assert_eq!(
                            table.get(id),
                            Some(&value),
                            "after {:?}: the live id {:?} should still name its value {}",
                            done, id, value
                        );
                    }
                    prop_assert_eq!(
                        table.places(),
                        (worn as usize).max(most_live),
                        "after {:?}: a new place only when none is free ({} worn, at most {} values at once)",
                        done, worn, most_live
                    );
                }
            }
        }
    }
}
