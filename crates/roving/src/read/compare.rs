//! Comparing a [`Value`] with plain Rust values (`value == "Ada"`,
//! `value == 3`, `value == 2.5`, `value == true`), in both orders, as
//! `serde_json::Value` compares (examples: [`Value`]).

use crate::read::Value;

/// `PartialEq<Value>` for each `$t`, as `Value`'s `PartialEq<$t>` (the
/// other order).
macro_rules! mirror_eq {
    ($($t:ty),*) => {$(
        impl PartialEq<Value<'_>> for $t {
            fn eq(&self, other: &Value<'_>) -> bool {
                other == self
            }
        }
    )*};
}

/// `PartialEq<T>` for `Value` and `PartialEq<Value>` for `T`, comparing
/// what `$read` gives (`Option<_>`) with the plain value converted by `$conv`.
macro_rules! compare_plain {
    ($read:ident, $conv:ident: $($t:ty),*) => {$(
        impl PartialEq<$t> for Value<'_> {
            fn eq(&self, other: &$t) -> bool {
                self.$read() == Some($conv(*other))
            }
        }

        mirror_eq!($t);
    )*};
}

fn signed<T: Into<i64>>(x: T) -> i64 {
    x.into()
}

fn unsigned<T: Into<u64>>(x: T) -> u64 {
    x.into()
}

fn float<T: Into<f64>>(x: T) -> f64 {
    x.into()
}

fn same<T>(x: T) -> T {
    x
}

// Integers equal an integer value of the same number (`Int` or `UInt`);
// floats compare with what `as_f64` reads (an integer value too, possibly
// rounded, and NaN equals nothing); booleans with a `Bool`.
compare_plain!(as_i64, signed: i8, i16, i32, i64);
compare_plain!(as_u64, unsigned: u8, u16, u32, u64);
compare_plain!(as_f64, float: f32, f64);
compare_plain!(as_bool, same: bool);

impl PartialEq<isize> for Value<'_> {
    fn eq(&self, other: &isize) -> bool {
        i64::try_from(*other).is_ok_and(|i| self.as_i64() == Some(i))
    }
}

impl PartialEq<usize> for Value<'_> {
    fn eq(&self, other: &usize) -> bool {
        u64::try_from(*other).is_ok_and(|u| self.as_u64() == Some(u))
    }
}

/// A string value equals the same text.
impl PartialEq<str> for Value<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for Value<'_> {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

mirror_eq!(isize, usize, str, &str, String);
