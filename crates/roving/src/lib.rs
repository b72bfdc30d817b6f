//! # roving
//!
//! A binary object format that is read where it lies: a document is opened
//! in O(1) (or validated in one linear pass when it comes from outside),
//! array elements are reached in O(1) and map keys by a hash probe, with no
//! parse step and no allocation. It is smaller than JSON (a string that
//! recurs is stored once, maps of one shape share their key list, slots are as narrow
//! as their container allows) and carries more than JSON: 64-bit and big
//! integers, bit-exact floats, byte strings, timestamps, typed numeric
//! vectors and extension values.
//!
//! ```
//! let bytes = roving::json::from_json(br#"{"name":"Ada","tags":["x","y"]}"#)?;
//! let doc = roving::Document::open(&bytes)?;          // validates
//! assert_eq!(doc.root().get("name").and_then(|v| v.as_str()), Some("Ada"));
//! assert_eq!(roving::json::to_json(doc.root())?, r#"{"name":"Ada","tags":["x","y"]}"#);
//! # Ok::<(), roving::Error>(())
//! ```
//!
//! The format is specified in `docs/FORMAT.md`.

pub mod dictionary;
pub mod encode;
pub mod error;
pub mod json;
pub mod layout;
pub mod read;
pub mod serde;
pub mod stream;
pub mod timestamp;
pub mod validate;
pub mod walk;

#[cfg(test)]
mod test_rng;

/// The `num-bigint` crate whose `BigInt` [`Value::as_bigint`] returns and
/// [`Encoder::bigint`] takes, re-exported so that callers use the same
/// version without depending on it themselves.
///
/// ```
/// use roving::num_bigint::BigInt;
/// let big: BigInt = "123456789012345678901234567890".parse().unwrap();
/// let mut enc = roving::Encoder::new();
/// enc.bigint(&big)?;
/// let bytes = enc.finish()?;
/// assert_eq!(roving::Document::open(&bytes)?.root().as_bigint(), Some(big));
/// # Ok::<(), roving::Error>(())
/// ```
pub use num_bigint;

pub use dictionary::Dictionary;
pub use encode::{Encoder, KeyId, Mark};
pub use error::{Error, ErrorKind, Result};
/// The byte layout under its former name: `roving::format::TAG_MAP` and
/// the like keep working.
pub use layout as format;
pub use layout::ElemType;
pub use read::{Array, Document, KeyHandle, Map, Value, Vector};
pub use serde::{from_slice, from_value, to_vec};
pub use timestamp::Timestamp;
pub use validate::validate;

/// Limits that protect conversions (to JSON, to typed values, to Python)
/// from hostile documents: a small document whose subtrees are shared can
/// stand for an enormous tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Maximum nesting depth of containers.
    pub max_depth: usize,
    /// Maximum number of values visited, counting a shared subtree once per
    /// place it appears. The JSON writer and serde decoding also count one
    /// value per [`BYTES_PER_VALUE`] bytes of the strings, byte strings,
    /// big integers and extension payloads they copy out (the JSON writer:
    /// of the text it writes), and one per vector element, so that a long
    /// string shared by many places cannot make the output large either.
    pub max_values: u64,
}

/// Bytes of string, byte string, big integer or extension payload (or of
/// JSON text) that count as one value against [`Limits::max_values`].
pub const BYTES_PER_VALUE: usize = 16;

impl Limits {
    /// The default limits for a document of `len` bytes: depth 10,000 and
    /// `max(16 * len, 10,000,000)` values (a document without shared
    /// containers has fewer values than bytes).
    pub fn for_len(len: usize) -> Limits {
        Limits {
            max_depth: 10_000,
            max_values: (len as u64).saturating_mul(16).max(10_000_000),
        }
    }

    /// No limits (for trusted data).
    pub fn none() -> Limits {
        Limits {
            max_depth: usize::MAX,
            max_values: u64::MAX,
        }
    }
}

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
