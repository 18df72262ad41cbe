//! The list of work: the source article's `fetchList()`.
//!
//! Items have ids `0..n` and payloads derived from the seed, so the same
//! `--items` and `--seed` always mean the same work, and the report can
//! rebuild the list to check the database against it.

use crate::dice::{Purpose, mix};
use crate::protocol::{ItemId, Payload, Phase, ResultHash};

/// One unit of work: send it to the slow service, store what comes back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The item's key, unique within a run.
    pub id: ItemId,
    /// The data sent with it.
    pub payload: Payload,
}

impl Item {
    /// The result a correct server answers for this item.
    pub fn expected_result(&self) -> ResultHash {
        ResultHash::of(self.id, &self.payload)
    }
}

/// The item list for a run: `n` items, ids `0..n`.
pub fn items(n: usize, seed: u64) -> Vec<Item> {
    (0..n as u64).map(|i| item(ItemId(i), seed)).collect()
}

/// The item with this id in the list for `seed`.
pub fn item(id: ItemId, seed: u64) -> Item {
    // "item-<id>-<8 to 24 base-32 characters>": readable in a trace, varied
    // in length so framing sees lines of different sizes.
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let bits = mix(seed, id, Phase::Get, Purpose::Payload);
    let len = 8 + (bits % 17) as usize;
    let mut state = bits;
    let tail: String = (0..len)
        .map(|_| {
            state = state.rotate_left(5) ^ 0x9e37_79b9_7f4a_7c15;
            char::from(ALPHABET[(state & 31) as usize])
        })
        .collect();
    let text = format!("item-{id}-{tail}");
    Item {
        id,
        payload: Payload::new(text).expect("letters, digits and '-' are valid payload characters"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_repeatable_and_distinct_per_seed() {
        assert_eq!(items(50, 1), items(50, 1));
        assert_ne!(items(50, 1), items(50, 2));
        let list = items(1000, 1);
        assert!(
            list.iter()
                .enumerate()
                .all(|(i, item)| item.id == ItemId(i as u64))
        );
    }
}
