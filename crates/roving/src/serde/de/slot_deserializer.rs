//! One element of an array or value of a map decoded straight from its
//! slot, as far as the requested type needs.

use serde::de::{self, Visitor};

use super::context::Context;
use super::slots::NULL_SLOT;
use super::Deserializer;
use crate::error::{Error, Result};
use crate::layout::bytes_at;
use crate::layout::{
    f_dec_value, is_num_array, is_small_int, read_varint, small_int_record, SPECIAL_FALSE,
    SPECIAL_TRUE, TAG_ARRAY, TAG_F32, TAG_F64, TAG_F_DEC, TAG_MAP, TAG_SHORT_STR, TAG_STR,
};
use crate::read::{record_value, special_value, text, Array, Map, Value};

/// The bytes of the record at `p` with tag `tag` if it is a long-form
/// string record (out of line: the short form is the common one).
#[inline(never)]
fn long_string_bytes(document: &[u8], tag: u8, p: usize) -> Option<&[u8]> {
    if tag != TAG_STR {
        return None;
    }
    let (len, at) = read_varint(document, p + 1)?;
    bytes_at(document, at, len)
}

/// One element of an array or value of a map, as a resolved slot (see
/// [`resolve`](super::slots::resolve)): the common requests read it directly, the others through
/// the [`Value`]-based [`Deserializer`].
pub(super) struct SlotDeserializer<'de, 'b> {
    /// The resolved slot.
    pub(super) slot: u64,
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
}

impl<'de, 'b> SlotDeserializer<'de, 'b> {
    /// The slot's record: its tag and position.
    #[inline(always)]
    fn record(&self) -> Option<(u8, usize)> {
        if self.slot & 3 != 0 {
            return None;
        }
        let p = (self.slot >> 2) as usize;
        Some((*self.context.document.get(p)?, p))
    }

    /// The array the slot refers to, if it is an array record (of slots,
    /// a string array, a stride array or a number array).
    #[inline(always)]
    fn array(&self) -> Option<Array<'de>> {
        let (tag, p) = self.record()?;
        (tag & !3 == TAG_ARRAY
            || tag == crate::layout::TAG_STR_ARRAY
            || tag == crate::layout::TAG_STRIDE_ARRAY
            || is_num_array(tag))
        .then(|| Array::at(self.context.document, p))
    }

    /// The integer of the slot's record if it is an `i8` to `i64` record
    /// (as [`Self::value`] reads it: `Value::Int`); `None` otherwise, or
    /// when the record's one 8-byte load would pass the document's end.
    #[inline(always)]
    fn int_record(&self) -> Option<i64> {
        let (tag, p) = self.record()?;
        is_small_int(tag)
            .then(|| small_int_record(self.context.document, p, tag))
            .flatten()
    }

    /// The slot as a [`Value`].
    fn value(&self) -> Value<'de> {
        let slot = self.slot;
        match slot & 3 {
            0 => record_value(self.context.document, (slot >> 2) as usize, 0),
            1 => Value::Int((slot as i64) >> 2),
            3 => special_value(slot >> 2),
            _ => Value::Null,
        }
    }

    /// `f` of the [`Value`]-based deserializer of the slot: the slow path,
    /// out of line so that the fast ones stay small.
    #[inline(never)]
    fn slow<R>(self, f: impl FnOnce(Deserializer<'de, 'b>) -> R) -> R {
        f(Deserializer {
            value: self.value(),
            context: self.context,
        })
    }
}

/// `deserialize_*` methods of [`SlotDeserializer`] for integers: an immediate is
/// visited directly, anything else goes through [`SlotDeserializer::slow`].
macro_rules! slot_int {
    ($($f:ident),*) => {$(
        #[inline]
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if self.slot & 3 == 1 {
                visitor.visit_i64((self.slot as i64) >> 2)
            } else if let Some(v) = self.int_record() {
                visitor.visit_i64(v)
            } else {
                self.slow(|d| d.$f(visitor))
            }
        }
    )*};
}

/// `deserialize_*` methods of [`SlotDeserializer`] that go through [`SlotDeserializer::slow`].
macro_rules! via_value {
    ($($f:ident($($a:ident: $t:ty),*);)*) => {$(
        fn $f<V: Visitor<'de>>(self, $($a: $t,)* visitor: V) -> Result<V::Value> {
            self.slow(|d| d.$f($($a,)* visitor))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for SlotDeserializer<'de, '_> {
    type Error = Error;

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((tag, p)) = self.record() {
            let document = self.context.document;
            let s = if tag & 0xC0 == TAG_SHORT_STR {
                document.get(p + 1..p + 1 + (tag & 0x3F) as usize)
            } else {
                long_string_bytes(document, tag, p)
            };
            // Not lazy: the document was validated.
            if let Some(s) = s.and_then(|b| text(b, 0)) {
                self.context.payload(s.len())?;
                return visitor.visit_borrowed_str(s);
            }
        }
        self.slow(|d| d.deserialize_str(visitor))
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.slot {
            x if x == (SPECIAL_TRUE << 2) | 3 => visitor.visit_bool(true),
            x if x == (SPECIAL_FALSE << 2) | 3 => visitor.visit_bool(false),
            _ => self.slow(|d| d.deserialize_bool(visitor)),
        }
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((tag, p)) = self.record() {
            let document = self.context.document;
            if tag == TAG_F_DEC {
                if let Some(&[e, m0, m1, m2, m3]) =
                    document.get(p + 1..).and_then(|b| b.first_chunk())
                {
                    let m = i32::from_le_bytes([m0, m1, m2, m3]);
                    return visitor.visit_f64(f_dec_value(m, e as i8));
                }
            } else if tag == TAG_F64 {
                if let Some(b) = document.get(p + 1..).and_then(|b| b.first_chunk::<8>()) {
                    return visitor.visit_f64(f64::from_le_bytes(*b));
                }
            }
        }
        self.slow(|d| d.deserialize_f64(visitor))
    }

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some((TAG_F32, p)) = self.record() {
            if let Some(b) = self
                .context
                .document
                .get(p + 1..)
                .and_then(|b| b.first_chunk::<4>())
            {
                return visitor.visit_f32(f32::from_le_bytes(*b));
            }
        }
        self.slow(|d| d.deserialize_f32(visitor))
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.slot == NULL_SLOT {
            visitor.visit_none()
        } else if self.slot & 3 == 0 {
            self.context.wrap(|| visitor.visit_some(self))
        } else {
            self.slow(|d| d.deserialize_option(visitor))
        }
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if let Some((tag, p)) = self.record() {
            if tag & !3 == TAG_MAP {
                return self.context.visit_map(
                    Map::at(self.context.document, p),
                    Some(fields),
                    visitor,
                );
            }
        }
        self.slow(|d| d.deserialize_struct(name, fields, visitor))
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.array() {
            Some(a) => self.context.visit_array(a, visitor),
            None => self.slow(|d| d.deserialize_seq(visitor)),
        }
    }

    /// As `deserialize_seq` for an array (the slow path reads a byte
    /// string as the sequence of its bytes).
    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        match self.array() {
            Some(a) => self.context.visit_array(a, visitor),
            None => self.slow(|d| d.deserialize_tuple(len, visitor)),
        }
    }

    /// As `deserialize_tuple` (as `Deserializer` reads one).
    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.context.wrap(|| visitor.visit_newtype_struct(self))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    slot_int!(
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64
    );

    via_value! {
        deserialize_any();
        deserialize_i128(); deserialize_u128(); deserialize_char();
        deserialize_bytes(); deserialize_byte_buf(); deserialize_unit();
        deserialize_unit_struct(n: &'static str);
        deserialize_map(); deserialize_identifier();
        deserialize_enum(n: &'static str, variants: &'static [&'static str]);
    }
}
