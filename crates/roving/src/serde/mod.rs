//! serde support: [`to_vec`] writes any `Serialize` type in one pass
//! through the [`Encoder`](crate::Encoder); [`from_slice`] validates a
//! document and deserializes from it in place, lending `&str` and `&[u8]`
//! straight from the input.
//!
//! Structs are maps keyed by field name (so maps of one struct type share
//! one shape), enums are externally tagged like serde_json, `Option::None`
//! is null, and `serde_bytes` / `&[u8]` fields are byte strings.
//! [`Timestamp`](crate::Timestamp) is a timestamp record (and RFC 3339
//! text in other formats, from which it also reads).

mod de;
mod ser;
mod timestamp;

pub use de::{from_slice, from_value, Deserializer};
pub use ser::{to_vec, Serializer};
