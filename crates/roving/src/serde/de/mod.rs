//! roving -> `Deserialize`, borrowing strings and bytes from the document.
//!
//! Structs: when a map's keys are exactly the struct's `fields` in order
//! (checked once per shape and cached), the keys are taken from `fields`
//! and only the values are read; any other map goes key by key. The
//! visitor sees the same keys either way.
//!
//! The elements of arrays and maps are handed to serde as [`SlotDeserializer`](slot_deserializer::SlotDeserializer)s: the
//! slot, resolved to one word, decoded only as far as the requested type
//! needs (a string, an integer, a float, a struct, a sequence); anything
//! else goes through the [`Value`]-based [`Deserializer`], with the same
//! visits either way. Typed decoding reads only validated documents.
//!
//! Files, by job:
//!
//! - this file: the entry points ([`from_slice`], [`from_value`],
//!   [`from_value_with`]);
//! - `deserializer`: the [`Value`]-based [`Deserializer`];
//! - `context`: the state one decoding shares (value budget, depth,
//!   the cache of shapes that spell a struct's fields);
//! - `slots`: the value slots of an array or map, resolved to one word;
//! - `slot_deserializer`: a slot decoded directly as the type requested;
//! - `sequences`: arrays, vectors, byte strings and extension values as
//!   serde sequences;
//! - `maps`: maps and structs as serde maps;
//! - `keys`: map keys, read as strings or parsed as numbers;
//! - `enums`: externally tagged enums;
//! - `error_paths`: the path and offset that decoding errors carry.

mod context;
mod deserializer;
mod enums;
mod error_paths;
mod keys;
mod maps;
mod sequences;
mod slot_deserializer;
mod slots;

use serde::de;

use crate::error::Result;
use crate::read::{Document, Value};
use crate::Limits;
use context::Context;
use deserializer::Deserializer;
pub use keys::is_int_key;

/// Maximum nesting depth of typed decoding by [`from_slice`] and
/// [`from_value`] (as serde_json's 128, it bounds the depth of the values
/// made, whose drops recurse too); [`from_value_with`] takes any.
pub const SERDE_MAX_DEPTH: usize = 256;

/// Validates `bytes` and deserializes a `T` from the document, borrowing
/// `&str` and `&[u8]` fields from `bytes`. Documents nested deeper than
/// 256 levels need [`from_value_with`].
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct User<'a> { name: &'a str, langs: Vec<&'a str> }
///
/// let bytes = roving::to_vec(&User { name: "Ada", langs: vec!["en"] })?;
/// let user: User = roving::from_slice(&bytes)?; // borrows from `bytes`
/// assert_eq!(user, User { name: "Ada", langs: vec!["en"] });
/// let err = roving::from_slice::<Vec<User>>(&bytes).unwrap_err();
/// assert_eq!(err.kind(), &roving::ErrorKind::TypeMismatch);
/// # Ok::<(), roving::Error>(())
/// ```
pub fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let doc = Document::open(bytes)?;
    let mut limits = Limits::for_len(bytes.len());
    limits.max_depth = limits.max_depth.min(SERDE_MAX_DEPTH);
    from_value_with(doc.root(), limits)
}

/// [`from_slice`] of a document written against a shared dictionary (or
/// a plain one): see [`Document::open_with`]. The value owns its data.
pub fn from_slice_with<T: de::DeserializeOwned>(
    bytes: &[u8],
    dict: &crate::Dictionary,
) -> Result<T> {
    let mut scratch = Vec::new();
    let doc = Document::open_with(bytes, dict, &mut scratch)?;
    let mut limits = Limits::for_len(bytes.len());
    limits.max_depth = limits.max_depth.min(SERDE_MAX_DEPTH);
    from_value_with(doc.root(), limits)
}

/// Deserializes a `T` from a value of an open document.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct User<'a> { name: &'a str }
///
/// let bytes = roving::json::from_json(br#"{"users":[{"name":"Ada"},{"name":"Grace"}]}"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// // Decode one part of a large document, without touching the rest.
/// let second: User = roving::from_value(doc.get_path("users[1]")?.unwrap())?;
/// assert_eq!(second, User { name: "Grace" });
/// # Ok::<(), roving::Error>(())
/// ```
pub fn from_value<'de, T: de::Deserialize<'de>>(value: Value<'de>) -> Result<T> {
    let mut limits = Limits::for_len(value.doc_len());
    limits.max_depth = SERDE_MAX_DEPTH;
    from_value_with(value, limits)
}

/// Deserializes a `T` from a value with explicit limits. A value of a
/// lazily opened document is validated first ([`Value::validated`]).
/// Deep levels run on stack segments of their own, so any depth limit is
/// safe on any thread's stack.
///
/// ```
/// let deep = roving::to_vec(&vec![vec![vec![1]]])?;
/// let doc = roving::Document::open(&deep)?;
/// let mut limits = roving::Limits::for_len(deep.len());
/// limits.max_depth = 2;
/// assert!(roving::serde::from_value_with::<Vec<Vec<Vec<u8>>>>(doc.root(), limits).is_err());
/// limits.max_depth = 3;
/// let back: Vec<Vec<Vec<u8>>> = roving::serde::from_value_with(doc.root(), limits)?;
/// assert_eq!(back, [[[1]]]);
/// # Ok::<(), roving::Error>(())
/// ```
pub fn from_value_with<'de, T: de::Deserialize<'de>>(
    value: Value<'de>,
    limits: Limits,
) -> Result<T> {
    let value = value.validated()?;
    let document = match value {
        Value::Array(a) => a.buf(),
        Value::Map(m) => m.buf(),
        _ => &[],
    };
    let context = Context::new(document, limits.max_values, limits.max_depth);
    T::deserialize(Deserializer {
        value,
        context: &context,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Rec {
        s: String,
        i: i64,
        f: f64,
        b: bool,
        o: Option<u32>,
        v: Vec<i64>,
    }

    /// Round trips through every slot width (documents of growing size),
    /// integers at the edges of the slot immediates (sign extension), and
    /// containers at the very end of the buffer (slots read narrowly) as
    /// well as inside it.
    #[test]
    fn slot_widths_and_buffer_ends() {
        for n in [0usize, 1, 3, 40, 700, 9000] {
            let recs: Vec<Rec> = (0..n)
                .map(|k| {
                    let i = match k % 6 {
                        0 => -(1i64 << (k % 62)),
                        1 => (1i64 << (k % 61)) - 1,
                        2 => i64::MIN + k as i64,
                        3 => i64::MAX - k as i64,
                        4 => -1,
                        _ => k as i64,
                    };
                    Rec {
                        s: "x".repeat(k % 70),
                        i,
                        f: k as f64 / 7.0 - 3.25,
                        b: k % 2 == 0,
                        o: (k % 3 != 0).then_some(k as u32),
                        v: (0..(k % 5) as i64).map(|j| i.wrapping_sub(j)).collect(),
                    }
                })
                .collect();
            let bytes = crate::to_vec(&recs).unwrap();
            assert_eq!(
                crate::from_slice::<Vec<Rec>>(&bytes).unwrap(),
                recs,
                "n {n}"
            );
            let by_key: BTreeMap<String, Vec<i64>> = recs
                .iter()
                .map(|r| (format!("{}{}", r.s, r.i), r.v.clone()))
                .collect();
            let bytes = crate::to_vec(&by_key).unwrap();
            assert_eq!(
                crate::from_slice::<BTreeMap<String, Vec<i64>>>(&bytes).unwrap(),
                by_key
            );
            // The last container of the document is read narrowly, inner ones widely.
            let tail: (Vec<i64>, Vec<i64>) = (vec![-5, 1 << 40, -(1 << 50)], vec![-1, 0, 1]);
            let bytes = crate::to_vec(&tail).unwrap();
            assert_eq!(
                crate::from_slice::<(Vec<i64>, Vec<i64>)>(&bytes).unwrap(),
                tail
            );
        }
    }
}
