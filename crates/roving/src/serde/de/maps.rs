//! Maps as serde maps: any map key by key, and a map whose keys are a
//! struct's fields in order with the keys taken from the field list.

use serde::de::{self, DeserializeSeed};

use super::context::Context;
use super::error_paths::{key_path, key_segment, value_before_key};
use super::keys::KeyDeserializer;
use super::slot_deserializer::SlotDeserializer;
use super::slots::Slots;
use super::Deserializer;
use crate::error::{Error, Result};
use crate::layout::Shape;
use crate::read::{text, Numbers, Value};

/// The entries of any map, keys read from its shape.
pub(super) struct MapEntries<'de, 'b> {
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
    /// The shape (`None` for the empty map).
    pub(super) shape: Option<Shape>,
    /// The map's value slots.
    pub(super) slots: Slots<'de>,
    /// Index of the next entry.
    pub(super) next: usize,
    /// The key and the resolved slot of the entry whose value is next.
    pub(super) pending: Option<(&'de str, u64)>,
}

impl<'de> de::MapAccess<'de> for MapEntries<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let (i, Some(shape)) = (self.next, &self.shape) else {
            return Ok(None);
        };
        if i >= self.slots.len {
            return Ok(None);
        }
        self.next += 1;
        // A malformed key (never in a validated document) reads as "".
        let k = shape.key_bytes(self.context.document, i);
        let k = k.and_then(|k| text(k, 0)).unwrap_or("");
        self.context.payload(k.len())?;
        self.pending = Some((k, self.slots.get(i)));
        seed.deserialize(KeyDeserializer::new(k)).map(Some)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some((k, x)) = self.pending.take() else {
            return Err(value_before_key());
        };
        match seed.deserialize(SlotDeserializer {
            slot: x,
            context: self.context,
        }) {
            Ok(v) => Ok(v),
            Err(e) => Err(key_path(e, k, self.next - 1, &self.slots)),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.slots.len - self.next.min(self.slots.len))
    }
}

/// The entries of a map whose keys are known to be `fields` in order: the
/// keys come from `fields`, only the values are read.
pub(super) struct StructEntries<'de, 'b> {
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
    /// The struct's field names, the map's keys.
    pub(super) fields: &'static [&'static str],
    /// The map's value slots.
    pub(super) slots: Slots<'de>,
    /// Index of the next key.
    pub(super) next: usize,
    /// Whether the value of key `next - 1` is still to be read.
    pub(super) pending: bool,
}

impl<'de> de::MapAccess<'de> for StructEntries<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some(&k) = self.fields.get(self.next) else {
            self.pending = false;
            return Ok(None);
        };
        self.next += 1;
        self.pending = true;
        seed.deserialize(KeyDeserializer::new(k)).map(Some)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if !std::mem::take(&mut self.pending) {
            return Err(value_before_key());
        }
        let i = self.next - 1;
        let slot = self.slots.get(i);
        match seed.deserialize(SlotDeserializer {
            slot,
            context: self.context,
        }) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.value_error(e)),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next)
    }
}

impl StructEntries<'_, '_> {
    /// The error `e` from the value of the last key, with its path and offset.
    #[cold]
    #[inline(never)]
    fn value_error(&self, e: Error) -> Error {
        let i = self.next - 1;
        key_path(e, self.fields[i], i, &self.slots)
    }
}

/// The entries of a map of numbers (format version 2): the keys from its
/// shape, the values from its number array.
pub(super) struct NumberEntries<'de, 'b> {
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
    /// The shape.
    pub(super) shape: Shape,
    /// The values, one per key.
    pub(super) numbers: Numbers<'de>,
    /// Index of the next entry.
    pub(super) next: usize,
    /// The key of the entry whose value is next.
    pub(super) pending: Option<&'de str>,
}

impl<'de> de::MapAccess<'de> for NumberEntries<'de, '_> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let i = self.next;
        if i >= self.shape.count.min(self.numbers.len()) {
            return Ok(None);
        }
        self.next += 1;
        // A malformed key (never in a validated document) reads as "".
        let k = self.shape.key_bytes(self.context.document, i);
        let k = k.and_then(|k| text(k, 0)).unwrap_or("");
        self.context.payload(k.len())?;
        self.pending = Some(k);
        seed.deserialize(KeyDeserializer::new(k)).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some(k) = self.pending.take() else {
            return Err(value_before_key());
        };
        let value = self.numbers.get(self.next - 1).unwrap_or(Value::Null);
        seed.deserialize(Deserializer {
            value,
            context: self.context,
        })
        .map_err(|e| key_segment(e, k))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.shape.count.saturating_sub(self.next))
    }
}
