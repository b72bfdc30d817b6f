//! The path (`$.a[1].x`) and byte offset that a decoding error carries.

use super::slots::Slots;
use crate::error::Error;

/// Prefixes the path of an error from element `i` of an array, whose
/// slots are `slots` (see [`at_value`]).
#[cold]
#[inline(never)]
pub(super) fn index_path(e: Error, i: usize, slots: &Slots) -> Error {
    at_value(e, i, slots).prefix_path(&format!("[{i}]"))
}

/// Prefixes the path of an error from the value of key `k`, the value of
/// slot `i` of `slots` (see [`at_value`]).
#[cold]
#[inline(never)]
pub(super) fn key_path(e: Error, k: &str, i: usize, slots: &Slots) -> Error {
    key_segment(at_value(e, i, slots), k)
}

/// Prefixes the path of an error with key `k`: `.k`, or `["k"]` for a key
/// that is not a plain word.
#[cold]
#[inline(never)]
pub(super) fn key_segment(e: Error, k: &str) -> Error {
    let simple = !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    if simple {
        e.prefix_path(&format!(".{k}"))
    } else {
        e.prefix_path(&format!("[{k:?}]"))
    }
}

/// An error from the value of slot `i` of `slots`, with the byte offset of
/// that value unless it has one (from a value further in): its record, or
/// the slot itself for a value held in the slot.
fn at_value(e: Error, i: usize, slots: &Slots) -> Error {
    if e.offset().is_some() {
        return e;
    }
    let x = slots.get(i);
    let at = if x & 3 == 0 {
        (x >> 2) as usize
    } else {
        slots.at + i * slots.width
    };
    e.with_offset(at)
}

/// The error of a map value requested before its key.
#[cold]
pub(super) fn value_before_key() -> Error {
    Error::custom("map value requested before its key")
}
