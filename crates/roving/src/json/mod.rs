//! JSON in and out.
//!
//! [`from_json`] converts JSON text straight into a roving document with a
//! streaming parser (no intermediate tree, no recursion): integers stay
//! integers (any size), other numbers become bit-exact floats. [`to_json`]
//! writes a value as compact or indented JSON, iteratively.
//!
//! Values that JSON lacks have this JSON form (see FORMAT.md):
//! byte strings `{"$base64": "..."}`, timestamps RFC 3339 strings, typed
//! vectors arrays of numbers, extensions `{"$ext": id, "$base64": "..."}`,
//! non-finite floats `null`.

mod parse;
mod write;

/// Bytes that a JSON string cannot hold as they are: `"`, `\` and the
/// control characters (the parser stops its fast scan at them; the writer
/// escapes them).
static SPECIAL_IN_STRING: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

pub use parse::{from_json, from_json_dict, from_json_into, from_json_with};
pub use write::{to_json, to_json_pretty, write_json, JsonOptions};
