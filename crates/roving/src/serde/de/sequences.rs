//! Arrays, typed vectors, byte strings and extension values as serde
//! sequences.

use serde::de::{self, DeserializeSeed, IntoDeserializer};

use super::context::Context;
use super::error_paths::index_path;
use super::slot_deserializer::SlotDeserializer;
use super::slots::Slots;
use super::Deserializer;
use crate::error::{Error, Result};
use crate::layout::{StrArray, StrideArray};
use crate::read::{Numbers, Scalar, Value, Vector};

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

/// The elements of a stride array record (`3B`): the records at equal
/// steps before it, each read as a slot referring to it would be.
pub(super) struct StrideElements<'de, 'b> {
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
    /// The record's header.
    pub(super) stride: StrideArray,
    /// Index of the next element.
    pub(super) next: usize,
}

impl<'de> de::SeqAccess<'de> for StrideElements<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let i = self.next;
        if i >= self.stride.count {
            return Ok(None);
        }
        self.next += 1;
        // A reference slot to the element's record (kind 0: its position).
        let slot = (self.stride.element(i) as u64) << 2;
        match seed.deserialize(SlotDeserializer {
            slot,
            context: self.context,
        }) {
            Ok(element) => Ok(Some(element)),
            Err(e) => Err(e.prefix_path(&format!("[{i}]"))),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.stride.count - self.next)
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

/// Elements read by index as [`Value`]s: a typed vector's and a number
/// array's ([`ValueElements`]).
pub(super) trait IndexedValues<'de> {
    /// Number of elements.
    fn count(&self) -> usize;
    /// Element `i`, for `i` below [`count`](Self::count).
    fn value(&self, i: usize) -> Value<'de>;
}

/// A typed vector's elements, each the [`Value`] it is (so that an `f32`
/// element, widened exactly, reads back into an `f32` bit for bit, NaN
/// payloads included).
impl<'de> IndexedValues<'de> for Vector<'de> {
    fn count(&self) -> usize {
        self.len()
    }
    fn value(&self, i: usize) -> Value<'de> {
        match self.get(i) {
            Some(Scalar::Int(i)) => Value::Int(i),
            Some(Scalar::UInt(u)) => Value::UInt(u),
            Some(Scalar::Float(f)) => Value::Float(f),
            None => Value::Null,
        }
    }
}

/// A number array record's elements, each the [`Value`] it is (an `Int`,
/// `UInt` or `Float`), as the same array of slots reads.
impl<'de> IndexedValues<'de> for Numbers<'de> {
    fn count(&self) -> usize {
        self.len()
    }
    #[inline]
    fn value(&self, i: usize) -> Value<'de> {
        self.get_below_len(i)
    }
}

/// The elements of a typed vector or a number array, as a sequence.
pub(super) struct ValueElements<'de, 'b, E> {
    /// The elements.
    elements: E,
    /// Their number.
    len: usize,
    /// Index of the next element.
    pub(super) next: usize,
    /// State shared by the whole decoding.
    context: &'b Context<'de>,
}

impl<'de, 'b, E: IndexedValues<'de>> ValueElements<'de, 'b, E> {
    /// The sequence of `elements`, from the first.
    #[inline]
    pub(super) fn new(elements: E, context: &'b Context<'de>) -> Self {
        ValueElements {
            len: elements.count(),
            elements,
            next: 0,
            context,
        }
    }
}

impl<'de, E: IndexedValues<'de>> de::SeqAccess<'de> for ValueElements<'de, '_, E> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let i = self.next;
        if i >= self.len {
            return Ok(None);
        }
        let value = self.elements.value(i);
        self.next += 1;
        seed.deserialize(Deserializer {
            value,
            context: self.context,
        })
        .map(Some)
        .map_err(|e: Error| e.prefix_path(&format!("[{i}]")))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.next)
    }
}

/// The elements of an `f64` number array record (`39`), each read from
/// its 8 bytes and visited as [`Deserializer`] visits `Value::Float`.
pub(super) struct F64Elements<'de, 'b> {
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
    /// The elements' bytes, little endian.
    pub(super) data: &'de [u8],
    /// Byte offset of the next element in `data`.
    pub(super) next: usize,
}

impl<'de> de::SeqAccess<'de> for F64Elements<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let at = self.next;
        let Some(bytes) = self.data.get(at..at + 8) else {
            return Ok(None);
        };
        self.next += 8;
        let x = f64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
        seed.deserialize(FloatDeserializer {
            value: x,
            context: self.context,
        })
        .map(Some)
        .map_err(|e: Error| e.prefix_path(&format!("[{}]", at / 8)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some((self.data.len() - self.next) / 8)
    }
}

/// A float element: `f64`, `f32` and `deserialize_any` requests are
/// visited here as [`Deserializer`] visits `Value::Float` (an `f32` when
/// the value is one exactly, NaN payloads included); every other request
/// goes to [`Deserializer`] itself, so the two never differ.
struct FloatDeserializer<'de, 'b> {
    value: f64,
    context: &'b Context<'de>,
}

impl<'de, 'b> FloatDeserializer<'de, 'b> {
    /// The general deserializer of the same value.
    #[inline(always)]
    fn general(self) -> Deserializer<'de, 'b> {
        Deserializer {
            value: Value::Float(self.value),
            context: self.context,
        }
    }
}

/// Forwards each listed request (with its arguments) to
/// [`FloatDeserializer::general`].
macro_rules! forward_to_general {
    ($($method:ident($($a:ident: $t:ty),*);)*) => {$(
        #[inline]
        fn $method<V: de::Visitor<'de>>(self, $($a: $t,)* visitor: V) -> Result<V::Value> {
            de::Deserializer::$method(self.general(), $($a,)* visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for FloatDeserializer<'de, '_> {
    type Error = Error;
    #[inline]
    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f64(self.value)
    }
    #[inline]
    fn deserialize_f64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f64(self.value)
    }
    #[inline]
    fn deserialize_f32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match crate::layout::f64_to_f32_exact(self.value) {
            Some(x) => visitor.visit_f32(x),
            None => visitor.visit_f64(self.value),
        }
    }
    forward_to_general! {
        deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
        deserialize_i64(); deserialize_i128(); deserialize_u8(); deserialize_u16();
        deserialize_u32(); deserialize_u64(); deserialize_u128(); deserialize_char();
        deserialize_str(); deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit(); deserialize_seq(); deserialize_map();
        deserialize_identifier(); deserialize_ignored_any();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
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

/// The part of a shaped vector of dimensions `dims` (a suffix of its
/// shape, at least one) that starts at element `first`: nested sequences,
/// row-major, each element read as the [`Value`] it is.
#[derive(Clone, Copy)]
pub(super) struct ShapedRows<'de, 'b, 'd> {
    /// The shaped vector.
    pub(super) vector: Vector<'de>,
    /// The dimensions of this part.
    pub(super) dims: &'d [usize],
    /// Its first element.
    pub(super) first: usize,
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
}

impl<'de> ShapedRows<'de, '_, '_> {
    /// Visits this part as a sequence (one container level down), and
    /// checks the visitor read all of it.
    pub(super) fn visit<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.dims.first().copied().unwrap_or(0);
        let depth = self.context.enter(n)?;
        let mut seq = ShapedRowsSeq {
            rows: self,
            next: 0,
        };
        let r = visitor.visit_seq(&mut seq);
        self.context.leave(depth);
        let r = r?;
        if seq.next < n {
            return Err(de::Error::invalid_length(n, &ExpectedLength(seq.next)));
        }
        Ok(r)
    }
}

/// [`ShapedRows`] being read.
struct ShapedRowsSeq<'de, 'b, 'd> {
    rows: ShapedRows<'de, 'b, 'd>,
    next: usize,
}

impl<'de> de::SeqAccess<'de> for ShapedRowsSeq<'de, '_, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let ShapedRows {
            vector,
            dims,
            first,
            context,
        } = self.rows;
        let Some((&n, rest)) = dims.split_first() else {
            return Ok(None);
        };
        let i = self.next;
        if i >= n {
            return Ok(None);
        }
        self.next += 1;
        let r = if rest.is_empty() {
            let value = match vector.get(first.saturating_add(i)) {
                Some(Scalar::Int(x)) => Value::Int(x),
                Some(Scalar::UInt(x)) => Value::UInt(x),
                Some(Scalar::Float(x)) => Value::Float(x),
                None => Value::Null,
            };
            seed.deserialize(Deserializer { value, context })
        } else {
            // Saturating: a product that overflows has a 0 further on.
            let stride = rest.iter().fold(1usize, |a, &d| a.saturating_mul(d));
            seed.deserialize(ShapedRows {
                vector,
                dims: rest,
                first: first.saturating_add(i.saturating_mul(stride)),
                context,
            })
        };
        r.map(Some)
            .map_err(|e: Error| e.prefix_path(&format!("[{i}]")))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.rows.dims.first().copied().unwrap_or(0) - self.next)
    }
}

impl<'de> de::Deserializer<'de> for ShapedRows<'de, '_, '_> {
    type Error = Error;
    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit(visitor)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
