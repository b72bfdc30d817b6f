//! roving -> `Deserialize`, borrowing strings and bytes from the document.

use std::cell::Cell;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::error::{Error, ErrorKind, Result};
use crate::read::{ArrayIter, Document, MapIter, Scalar, Value, Vector};
use crate::Limits;

/// Maximum nesting depth of typed decoding (serde recurses per level).
pub const SERDE_MAX_DEPTH: usize = 256;

/// Validates `bytes` and deserializes a `T` from the document, borrowing
/// `&str` and `&[u8]` fields from `bytes`.
pub fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let doc = Document::open(bytes)?;
    let mut limits = Limits::for_len(bytes.len());
    limits.max_depth = limits.max_depth.min(SERDE_MAX_DEPTH);
    from_value_with(doc.root(), limits)
}

/// Deserializes a `T` from a value of an open document.
pub fn from_value<'de, T: de::Deserialize<'de>>(value: Value<'de>) -> Result<T> {
    let mut limits = Limits::for_len(value.doc_len());
    limits.max_depth = SERDE_MAX_DEPTH;
    from_value_with(value, limits)
}

/// Deserializes a `T` from a value with explicit limits. A value of a
/// lazily opened document is validated first ([`Value::validated`]).
pub fn from_value_with<'de, T: de::Deserialize<'de>>(
    value: Value<'de>,
    limits: Limits,
) -> Result<T> {
    let value = value.validated()?;
    let budget = Cell::new(limits.max_values);
    T::deserialize(Deserializer {
        value,
        depth: limits.max_depth,
        budget: &budget,
    })
}

/// A serde `Deserializer` over one [`Value`].
pub struct Deserializer<'de, 'b> {
    value: Value<'de>,
    /// Levels left.
    depth: usize,
    /// Values left to visit.
    budget: &'b Cell<u64>,
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::TypeMismatch).with_message(msg)
    }
}

impl<'de, 'b> Deserializer<'de, 'b> {
    fn child(&self, value: Value<'de>) -> Result<Deserializer<'de, 'b>> {
        let left = self.budget.get();
        if left == 0 {
            return Err(Error::new(ErrorKind::ExpansionLimit));
        }
        self.budget.set(left - 1);
        Ok(Deserializer {
            value,
            depth: self.depth,
            budget: self.budget,
        })
    }

    fn enter(&self) -> Result<usize> {
        if self.depth == 0 {
            return Err(Error::new(ErrorKind::DepthLimit));
        }
        Ok(self.depth - 1)
    }

    fn unexpected(&self) -> de::Unexpected<'_> {
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

impl<'de> de::Deserializer<'de> for Deserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i64(i),
            Value::UInt(u) => visitor.visit_u64(u),
            Value::BigInt(b) => {
                let n = b.to_num();
                if let Ok(x) = i128::try_from(&n) {
                    visitor.visit_i128(x)
                } else if let Ok(x) = u128::try_from(&n) {
                    visitor.visit_u128(x)
                } else {
                    visitor.visit_string(n.to_string())
                }
            }
            Value::Float(f) => visitor.visit_f64(f),
            Value::Str(s) => visitor.visit_borrowed_str(s),
            Value::Bytes(b) => visitor.visit_borrowed_bytes(b),
            Value::Timestamp(t) => visitor.visit_string(t.to_rfc3339()),
            Value::Ext(e) => visitor.visit_seq(
                vec![Value::Int(e.type_id as i64), Value::Bytes(e.data)]
                    .into_iter()
                    .map(ScalarOrValue::Value)
                    .collect::<Vec<_>>()
                    .into_seq(self.enter()?, self.budget),
            ),
            Value::Vector(v) => visitor.visit_seq(VectorSeq { v, i: 0 }),
            Value::Array(a) => {
                let depth = self.enter()?;
                visitor.visit_seq(ArraySeq {
                    iter: a.iter(),
                    i: 0,
                    de: Deserializer {
                        value: Value::Null,
                        depth,
                        budget: self.budget,
                    },
                })
            }
            Value::Map(m) => {
                let depth = self.enter()?;
                visitor.visit_map(MapAcc {
                    iter: m.iter(),
                    pending: None,
                    de: Deserializer {
                        value: Value::Null,
                        depth,
                        budget: self.budget,
                    },
                })
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Value::Bytes(b) => visitor.visit_borrowed_bytes(b),
            Value::Str(s) => visitor.visit_borrowed_bytes(s.as_bytes()),
            Value::Vector(v) if v.elem_type() == crate::ElemType::U8 => {
                visitor.visit_borrowed_bytes(v.raw())
            }
            _ => self.deserialize_any(visitor),
        }
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
                let depth = self.enter()?;
                visitor.visit_enum(EnumAcc {
                    variant: m.key_at(0).unwrap_or(""),
                    de: Deserializer {
                        value: m.value_at(0).unwrap_or(Value::Null),
                        depth,
                        budget: self.budget,
                    },
                })
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

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 char str string
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

struct ArraySeq<'de, 'b> {
    iter: ArrayIter<'de>,
    i: usize,
    de: Deserializer<'de, 'b>,
}

impl<'de> de::SeqAccess<'de> for ArraySeq<'de, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(v) = self.iter.next() else {
            return Ok(None);
        };
        let i = self.i;
        self.i += 1;
        seed.deserialize(self.de.child(v)?)
            .map(Some)
            .map_err(|e| e.prefix_path(&format!("[{i}]")))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct VectorSeq<'de> {
    v: Vector<'de>,
    i: usize,
}

impl<'de> de::SeqAccess<'de> for VectorSeq<'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(x) = self.v.get(self.i) else {
            return Ok(None);
        };
        self.i += 1;
        match x {
            Scalar::Int(i) => seed.deserialize(i.into_deserializer()).map(Some),
            Scalar::UInt(u) => seed.deserialize(u.into_deserializer()).map(Some),
            Scalar::Float(f) => seed.deserialize(f.into_deserializer()).map(Some),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.v.len() - self.i)
    }
}

struct MapAcc<'de, 'b> {
    iter: MapIter<'de>,
    pending: Option<(&'de str, Value<'de>)>,
    de: Deserializer<'de, 'b>,
}

impl<'de> de::MapAccess<'de> for MapAcc<'de, '_> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((k, v)) = self.iter.next() else {
            return Ok(None);
        };
        self.pending = Some((k, v));
        seed.deserialize(KeyDe(k)).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let (k, v) = self
            .pending
            .take()
            .ok_or_else(|| Error::custom("map value requested before its key"))?;
        seed.deserialize(self.de.child(v)?).map_err(|e| {
            let simple = !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
            if simple {
                e.prefix_path(&format!(".{k}"))
            } else {
                e.prefix_path(&format!("[{k:?}]"))
            }
        })
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// Map keys: borrowed strings, parsed as numbers when a number is wanted.
struct KeyDe<'de>(&'de str);

macro_rules! key_parse {
    ($($f:ident => $v:ident: $t:ty),*) => {$(
        fn $f<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.0.parse::<$t>() {
                Ok(x) => visitor.$v(x),
                Err(_) => visitor.visit_borrowed_str(self.0),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDe<'de> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }
    key_parse!(deserialize_i8 => visit_i8: i8, deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32, deserialize_i64 => visit_i64: i64,
        deserialize_u8 => visit_u8: u8, deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32, deserialize_u64 => visit_u64: u64,
        deserialize_bool => visit_bool: bool, deserialize_char => visit_char: char);
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self.0.into_deserializer())
    }
    serde::forward_to_deserialize_any! {
        i128 u128 f32 f64 str string bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

struct EnumAcc<'de, 'b> {
    variant: &'de str,
    de: Deserializer<'de, 'b>,
}

impl<'de, 'b> de::EnumAccess<'de> for EnumAcc<'de, 'b> {
    type Error = Error;
    type Variant = Deserializer<'de, 'b>;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let v = seed.deserialize(KeyDe(self.variant))?;
        Ok((v, self.de))
    }
}

impl<'de> de::VariantAccess<'de> for Deserializer<'de, '_> {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        match self.value {
            Value::Null => Ok(()),
            _ => Err(de::Error::invalid_type(
                self.unexpected(),
                &"a unit variant",
            )),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _f: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}

/// Small helper to present a list of values as a sequence.
enum ScalarOrValue<'de> {
    Value(Value<'de>),
}

trait IntoSeq<'de, 'b> {
    fn into_seq(self, depth: usize, budget: &'b Cell<u64>) -> ListSeq<'de, 'b>;
}

impl<'de, 'b> IntoSeq<'de, 'b> for Vec<ScalarOrValue<'de>> {
    fn into_seq(self, depth: usize, budget: &'b Cell<u64>) -> ListSeq<'de, 'b> {
        ListSeq {
            items: self.into_iter(),
            depth,
            budget,
        }
    }
}

struct ListSeq<'de, 'b> {
    items: std::vec::IntoIter<ScalarOrValue<'de>>,
    depth: usize,
    budget: &'b Cell<u64>,
}

impl<'de> de::SeqAccess<'de> for ListSeq<'de, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.items.next() {
            None => Ok(None),
            Some(ScalarOrValue::Value(v)) => seed
                .deserialize(Deserializer {
                    value: v,
                    depth: self.depth,
                    budget: self.budget,
                })
                .map(Some),
        }
    }
}
