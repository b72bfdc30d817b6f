//! The [`Value`]-based serde `Deserializer`: every kind of value, for the
//! requests that the slot fast paths do not take.

use serde::de::{self, IntoDeserializer, Visitor};

use super::context::Context;
use super::enums::EnumVariant;
use super::sequences::{ExpectedLength, ExtensionParts, ShapedRows, ValueElements};
use crate::error::{Error, ErrorKind, Result};
use crate::read::Value;

/// A serde `Deserializer` over one [`Value`] (made by [`from_value_with`](super::from_value_with)
/// for the value and each one below it).
pub(crate) struct Deserializer<'de, 'b> {
    /// The value to decode.
    pub(super) value: Value<'de>,
    /// State shared by the whole decoding.
    pub(super) context: &'b Context<'de>,
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::TypeMismatch).with_message(msg)
    }
}

impl Deserializer<'_, '_> {
    /// The value as serde names it in a type error.
    pub(super) fn unexpected(&self) -> de::Unexpected<'_> {
        match self.value {
            Value::Null => de::Unexpected::Unit,
            Value::Bool(b) => de::Unexpected::Bool(b),
            Value::Int(i) => de::Unexpected::Signed(i),
            Value::UInt(u) => de::Unexpected::Unsigned(u),
            Value::Float(f) => de::Unexpected::Float(f),
            Value::Str(s) => de::Unexpected::Str(s),
            Value::Bytes(b) => de::Unexpected::Bytes(b),
            Value::Array(_) | Value::Vector(_) => de::Unexpected::Seq,
            Value::Map(_) => de::Unexpected::Map,
            _ => de::Unexpected::Other(self.value.type_name()),
        }
    }
}

/// `deserialize_*` methods that visit one variant of [`Value`] directly and
/// defer everything else to `deserialize_any`.
macro_rules! scalar_fast {
    ($($($f:ident),+ => $pat:pat => $visit:ident($x:expr);)*) => {$($(
        #[inline]
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.value {
                $pat => visitor.$visit($x),
                _ => self.deserialize_any(visitor),
            }
        }
    )+)*};
}

impl<'de> de::Deserializer<'de> for Deserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i64(i),
            Value::UInt(u) => visitor.visit_u64(u),
            Value::BigInt(b) if b.magnitude.len() <= 16 => {
                let n = b.to_num();
                if let Ok(x) = i128::try_from(&n) {
                    visitor.visit_i128(x)
                } else if let Ok(x) = u128::try_from(&n) {
                    visitor.visit_u128(x)
                } else {
                    visitor.visit_string(n.to_string())
                }
            }
            // Past 128 bits, its decimal text (what serde_json's `Value`
            // takes for such a number).
            Value::BigInt(b) => visitor.visit_string(self.context.decimal(b)?),
            Value::Float(f) => visitor.visit_f64(f),
            Value::Str(s) => {
                self.context.payload(s.len())?;
                visitor.visit_borrowed_str(s)
            }
            Value::Bytes(b) => {
                self.context.payload(b.len())?;
                visitor.visit_borrowed_bytes(b)
            }
            Value::Timestamp(t) => visitor.visit_string(t.to_rfc3339()),
            Value::Ext(e) => {
                let depth = self.context.enter(2)?;
                let id = match i64::try_from(e.type_id) {
                    Ok(i) => Value::Int(i),
                    Err(_) => Value::UInt(e.type_id),
                };
                let r = visitor.visit_seq(ExtensionParts {
                    items: [id, Value::Bytes(e.data)].into_iter(),
                    context: self.context,
                });
                self.context.leave(depth);
                r
            }
            Value::Vector(v) if v.ndim() > 1 => {
                // Nested sequences, row-major; its elements are values.
                self.context
                    .payload(v.len().saturating_mul(crate::BYTES_PER_VALUE))?;
                ShapedRows {
                    vector: v,
                    dims: &v.shape(),
                    first: 0,
                    context: self.context,
                }
                .visit(visitor)
            }
            Value::Vector(v) => {
                // Its elements are values.
                self.context
                    .payload(v.len().saturating_mul(crate::BYTES_PER_VALUE))?;
                let mut elements = ValueElements::new(v, self.context);
                let r = visitor.visit_seq(&mut elements)?;
                if elements.next < v.len() {
                    return Err(de::Error::invalid_length(
                        v.len(),
                        &ExpectedLength(elements.next),
                    ));
                }
                Ok(r)
            }
            Value::Array(a) => self.context.visit_array(a, visitor),
            Value::Map(m) => self.context.visit_map(m, None, visitor),
        }
    }

    /// Maps whose keys are exactly `fields`, in order (checked once per
    /// shape), hand the visitor the names from `fields` instead of reading
    /// each key from the shape; the visitor sees the same keys either way.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Value::Map(m) => self.context.visit_map(m, Some(fields), visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => self.context.wrap(|| visitor.visit_some(self)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.context.wrap(|| visitor.visit_newtype_struct(self))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = match self.value {
            Value::Bytes(b) => b,
            Value::Str(s) => s.as_bytes(),
            Value::Vector(v) if v.elem_type() == crate::ElemType::U8 => v.raw(),
            _ => return self.deserialize_any(visitor),
        };
        self.context.payload(b.len())?;
        visitor.visit_borrowed_bytes(b)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Value::Str(s) => visitor.visit_enum(s.into_deserializer()),
            Value::Map(m) if m.len() == 1 => {
                let depth = self.context.enter(1)?;
                let r = self.context.at_level(depth, || {
                    visitor.visit_enum(EnumVariant {
                        variant: m.key_at(0).unwrap_or(""),
                        deserializer: Deserializer {
                            value: m.value_at(0).unwrap_or(Value::Null),
                            context: self.context,
                        },
                    })
                });
                self.context.leave(depth);
                r
            }
            _ => Err(de::Error::invalid_type(
                self.unexpected(),
                &"an enum (string or one-entry map)",
            )),
        }
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Int(i) => visitor.visit_i128(i as i128),
            Value::UInt(u) => visitor.visit_i128(u as i128),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Int(i) if i >= 0 => visitor.visit_u128(i as u128),
            Value::UInt(u) => visitor.visit_u128(u as u128),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    // The common cases of the scalar requests; anything else goes through
    // `deserialize_any` (same visits either way).
    scalar_fast! {
        deserialize_bool => Value::Bool(b) => visit_bool(b);
        deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64,
        deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64 => Value::Int(i) => visit_i64(i);
    }

    /// A big integer is visited as the nearest float, as serde_json reads
    /// an integer too large for 64 bits into an `f64`.
    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Float(f) => visitor.visit_f64(f),
            Value::BigInt(b) => visitor.visit_f64(bigint_to_float(b)),
            _ => self.deserialize_any(visitor),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Str(s) => {
                self.context.payload(s.len())?;
                visitor.visit_borrowed_str(s)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    /// A float that is a binary32 exactly (NaN payloads included) is
    /// visited as one, so that a signalling NaN stays signalling.
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Float(f) => match crate::layout::f64_to_f32_exact(f) {
                Some(x) => visitor.visit_f32(x),
                None => visitor.visit_f64(f),
            },
            Value::BigInt(b) => visitor.visit_f32(bigint_to_float(b)),
            _ => self.deserialize_any(visitor),
        }
    }

    /// A byte string is also a sequence of its bytes (a field that was
    /// `serde_bytes` when written and is a plain `Vec<u8>` now), as
    /// serde_json reads the array of numbers it writes for bytes.
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Array(a) => self.context.visit_array(a, visitor),
            Value::Bytes(b) => self.context.visit_byte_sequence(b, visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    /// As `deserialize_seq`: a byte string is the sequence of its bytes
    /// (`[u8; N]`, tuples).
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Bytes(b) => self.context.visit_byte_sequence(b, visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    serde::forward_to_deserialize_any! {
        char unit unit_struct map identifier
    }
}

/// The float (`f64` or `f32`) nearest to a big integer, infinite past the
/// float's range: correctly rounded from the decimal text, which is at most
/// 311 digits (a magnitude of more than 129 bytes is past 2^1032, infinite
/// in both).
fn bigint_to_float<F: std::str::FromStr + From<f32>>(b: crate::read::BigInt) -> F {
    let inf = if b.negative {
        f32::NEG_INFINITY
    } else {
        f32::INFINITY
    };
    if b.magnitude.len() > 129 {
        return F::from(inf);
    }
    b.to_decimal().parse().unwrap_or(F::from(inf))
}
