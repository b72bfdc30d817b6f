//! `TryFrom<Value>` for the plain types a value is read as (`&str`,
//! integers, `f64`, `bool`, byte strings, timestamps, containers), for
//! `let name: &str = value.try_into()?;` in code that returns
//! [`crate::Result`]: a value of another kind, or an integer out of the
//! type's range, is an [`ErrorKind::TypeMismatch`] error that says what
//! was expected and found (examples: [`Value`]).

use crate::error::{Error, ErrorKind};
use crate::read::{Array, Map, Value, Vector};
use crate::timestamp::Timestamp;

/// The error of a value of another kind than `expected`.
#[cold]
fn wrong_kind(found: &Value<'_>, expected: &str) -> Error {
    Error::new(ErrorKind::TypeMismatch).with_message(format!(
        "invalid type: {}, expected {expected}",
        found.type_name()
    ))
}

/// The error of an integer out of the range of `expected` (or another kind).
#[cold]
fn out_of_range(found: &Value<'_>, expected: &str) -> Error {
    let n = match found {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::BigInt(_) => "a big integer".to_string(),
        other => return wrong_kind(other, expected),
    };
    Error::new(ErrorKind::TypeMismatch).with_message(format!(
        "invalid value: {n}, out of the range of {expected}"
    ))
}

/// `TryFrom<Value<'a>>` for `$t`, read by `$read` (an `Option`), failing
/// with `$err` (`wrong_kind` or `out_of_range`) and the name `$name`.
macro_rules! try_from_value {
    ($($t:ty => $read:ident, $err:ident, $name:literal;)*) => {$(
        impl<'a> TryFrom<Value<'a>> for $t {
            type Error = Error;

            fn try_from(v: Value<'a>) -> Result<$t, Error> {
                v.$read().ok_or_else(|| $err(&v, $name))
            }
        }
    )*};
}

try_from_value! {
    &'a str => as_str, wrong_kind, "str";
    &'a [u8] => as_bytes, wrong_kind, "bytes";
    bool => as_bool, wrong_kind, "bool";
    f64 => as_f64, wrong_kind, "float";
    i64 => as_i64, out_of_range, "i64";
    u64 => as_u64, out_of_range, "u64";
    i128 => as_i128, out_of_range, "i128";
    u128 => as_u128, out_of_range, "u128";
    Timestamp => as_timestamp, wrong_kind, "timestamp";
    Array<'a> => as_array, wrong_kind, "array";
    Map<'a> => as_map, wrong_kind, "map";
    Vector<'a> => as_vector, wrong_kind, "vector";
}
