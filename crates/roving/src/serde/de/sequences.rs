//! Arrays, typed vectors, byte strings and extension values as serde
//! sequences.

use serde::de::{self, DeserializeSeed, IntoDeserializer};

use super::context::Context;
use super::error_paths::index_path;
use super::slot_deserializer::SlotDeserializer;
use super::slots::Slots;
use super::Deserializer;
use crate::error::{Error, Result};
use crate::layout::StrArray;
use crate::read::{Scalar, Value, Vector};

/// The elements of an array.
pub(super) struct ArrayElements<'de, 'b> {
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
    /// The array's slots.
    pub(super) slots: Slots<'de>,
    /// Index of the next element.
    pub(super) next: usize,
}

impl<'de> de::SeqAccess<'de> for ArrayElements<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let i = self.next;
        if i >= self.slots.len {
            return Ok(None);
        }
        self.next += 1;
        let slot = self.slots.get(i);
        match seed.deserialize(SlotDeserializer {
            slot,
            context: self.context,
        }) {
            Ok(element) => Ok(Some(element)),
            Err(e) => Err(index_path(e, i, &self.slots)),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.slots.len - self.next)
    }
}

/// The strings of a string array record (`22`), each lent as a `&'de str`.
pub(super) struct StrArrayElements<'de, 'b> {
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
    /// The record's parts.
    pub(super) strs: StrArray,
    /// `LAZY` for an array of a lazily opened document (its strings are
    /// checked for UTF-8 as read), else 0.
    pub(super) lazy: usize,
    /// Index of the next element.
    pub(super) next: usize,
}

impl<'de> de::SeqAccess<'de> for StrArrayElements<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let i = self.next;
        if i >= self.strs.count {
            return Ok(None);
        }
        self.next += 1;
        let doc = self.context.document;
        let value = match self
            .strs
            .bytes(doc, i)
            .and_then(|b| crate::read::text(b, self.lazy))
        {
            Some(s) => Value::Str(s),
            None => Value::Null,
        };
        seed.deserialize(Deserializer {
            value,
            context: self.context,
        })
        .map(Some)
        .map_err(|e: Error| str_element_path(e, i, &self.strs))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.strs.count - self.next)
    }
}

/// Prefixes the path of an error from string `i` of a string array, with
/// the byte offset of its end.
#[cold]
#[inline(never)]
fn str_element_path(e: Error, i: usize, strs: &StrArray) -> Error {
    let e = if e.offset().is_some() {
        e
    } else {
        e.with_offset(strs.ends + i * strs.end_width)
    };
    e.prefix_path(&format!("[{i}]"))
}

/// The elements of a typed vector, each read as the [`Value`] it is (so
/// that an `f32` element, widened exactly, reads back into an `f32` bit
/// for bit, NaN payloads included).
pub(super) struct VectorElements<'de, 'b> {
    /// The vector.
    pub(super) vector: Vector<'de>,
    /// Index of the next element.
    pub(super) next: usize,
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
}

impl<'de> de::SeqAccess<'de> for VectorElements<'de, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(element) = self.vector.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        let value = match element {
            Scalar::Int(i) => Value::Int(i),
            Scalar::UInt(u) => Value::UInt(u),
            Scalar::Float(f) => Value::Float(f),
        };
        seed.deserialize(Deserializer {
            value,
            context: self.context,
        })
        .map(Some)
        .map_err(|e: Error| e.prefix_path(&format!("[{}]", self.next - 1)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.vector.len() - self.next)
    }
}

/// The bytes of a byte string, as a sequence of `u8`s.
pub(super) struct ByteStringElements<'de> {
    /// The byte string.
    pub(super) bytes: &'de [u8],
    /// Index of the next byte.
    pub(super) next: usize,
}

impl<'de> de::SeqAccess<'de> for ByteStringElements<'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(&byte) = self.bytes.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        seed.deserialize(byte.into_deserializer())
            .map(Some)
            .map_err(|e: Error| e.prefix_path(&format!("[{}]", self.next - 1)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.bytes.len() - self.next)
    }
}

/// The two values of an extension (type id, bytes) as a sequence.
pub(super) struct ExtensionParts<'de, 'b> {
    /// The parts not yet read.
    pub(super) items: std::array::IntoIter<Value<'de>, 2>,
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
}

impl<'de> de::SeqAccess<'de> for ExtensionParts<'de, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.items.next() {
            None => Ok(None),
            Some(value) => seed
                .deserialize(Deserializer {
                    value,
                    context: self.context,
                })
                .map(Some),
        }
    }
}

/// What a visitor that read `n` elements of a longer sequence expected.
pub(super) struct ExpectedLength(pub(super) usize);

impl de::Expected for ExpectedLength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            1 => write!(f, "1 element in sequence"),
            n => write!(f, "{n} elements in sequence"),
        }
    }
}
