//! Placeholder: the standalone slow server (being written).
fn main() {}
