//! A test result whose `?` panics.
//!
//! A `#[test]` that returns `Err` fails without panicking, so the panic
//! hook that tells which tests failed never hears of it. A test that uses
//! `?` returns [`Outcome`] instead of `io::Result<()>`: its error type
//! cannot be built, and turning an error into it (what `?` does) panics
//! with the error's message, where the `?` is.

use std::fmt;

/// What a test that uses `?` returns: `Ok(())`, or a panic at the first
/// `?` that meets an error.
///
/// ```should_panic
/// use testbed::hints::Outcome;
///
/// fn a_test() -> Outcome {
///     let n: u32 = "twelve".parse()?; // panics: invalid digit found in string
///     assert_eq!(n, 12, "the text is a number");
///     Ok(())
/// }
/// a_test().ok();
/// ```
pub type Outcome = Result<(), ErrorPanics>;

/// The error of an [`Outcome`]: there is none, since making one panics.
pub enum ErrorPanics {}

impl<E: std::error::Error> From<E> for ErrorPanics {
    #[track_caller]
    fn from(error: E) -> ErrorPanics {
        panic!("the test's `?` met an error: {error}")
    }
}

impl fmt::Debug for ErrorPanics {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}
