//! roving -> `Deserialize`, borrowing strings and bytes from the document.
//!
//! Structs: when a map's keys are exactly the struct's `fields` in order
//! (checked once per shape and cached), the keys are taken from `fields`
//! and only the values are read; any other map goes key by key. The
//! visitor sees the same keys either way.

use std::cell::Cell;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::error::{Error, ErrorKind, Result};
use crate::read::{ArrayIter, Document, Map, MapIter, MapValues, Scalar, Value, Vector};
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
    let ctx = Ctx::new(limits.max_values);
    T::deserialize(Deserializer {
        value,
        depth: limits.max_depth,
        ctx: &ctx,
    })
}

/// A serde `Deserializer` over one [`Value`].
pub struct Deserializer<'de, 'b> {
    value: Value<'de>,
    /// Levels left.
    depth: usize,
    /// State shared by the whole decoding.
    ctx: &'b Ctx,
}

/// Number of entries of the [`Ctx`] shape cache (a power of two).
const SHAPE_CACHE: usize = 16;

/// State shared by one typed decoding: the value budget and a small cache
/// of which map shapes spell exactly a struct's field list.
struct Ctx {
    /// Values left to visit.
    budget: Cell<u64>,
    /// Direct-mapped by shape position: `(shape + 1, fields address,
    /// fields length, equal)`; a zero shape marks an empty entry.
    shapes: [Cell<(usize, usize, usize, bool)>; SHAPE_CACHE],
}

impl Ctx {
    fn new(budget: u64) -> Ctx {
        Ctx {
            budget: Cell::new(budget),
            shapes: Default::default(),
        }
    }

    /// Takes `n` values from the budget.
    #[inline(always)]
    fn charge(&self, n: usize) -> Result<()> {
        let left = self.budget.get();
        match left.checked_sub(n as u64) {
            Some(rest) => {
                self.budget.set(rest);
                Ok(())
            }
            None => Err(expansion_limit()),
        }
    }

    /// Whether the keys of `m`, whose shape is at `shape`, are exactly
    /// `fields`, in order (cached per shape and field list).
    #[inline]
    fn keys_are(&self, m: Map<'_>, shape: usize, fields: &'static [&'static str]) -> bool {
        let tag = (shape + 1, fields.as_ptr() as usize, fields.len());
        let cell = &self.shapes[(shape ^ (shape >> 4)) & (SHAPE_CACHE - 1)];
        let (s, f, n, equal) = cell.get();
        if (s, f, n) == tag {
            return equal;
        }
        let equal = m.len() == fields.len() && m.keys().zip(fields).all(|(k, f)| k == *f);
        cell.set((tag.0, tag.1, tag.2, equal));
        equal
    }
}

#[cold]
fn expansion_limit() -> Error {
    Error::new(ErrorKind::ExpansionLimit)
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::TypeMismatch).with_message(msg)
    }
}

impl<'de, 'b> Deserializer<'de, 'b> {
    /// A deserializer for a child value (its budget was charged when its
    /// container was entered).
    #[inline(always)]
    fn child(&self, value: Value<'de>) -> Deserializer<'de, 'b> {
        Deserializer {
            value,
            depth: self.depth,
            ctx: self.ctx,
        }
    }

    /// Enters a container of `len` values: one level down, `len` values
    /// taken from the budget; returns the deserializer template for its children.
    #[inline(always)]
    fn enter(&self, len: usize) -> Result<Deserializer<'de, 'b>> {
        if self.depth == 0 {
            return Err(Error::new(ErrorKind::DepthLimit));
        }
        self.ctx.charge(len)?;
        Ok(Deserializer {
            value: Value::Null,
            depth: self.depth - 1,
            ctx: self.ctx,
        })
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

/// `deserialize_*` methods that visit one variant of [`Value`] directly and
/// defer everything else to `deserialize_any`.
macro_rules! scalar_fast {
    ($($($f:ident),+ => $pat:pat => $visit:ident($x:expr);)*) => {$($(
        #[inline(always)]
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
            Value::Ext(e) => {
                let de = self.enter(2)?;
                visitor.visit_seq(PairSeq {
                    items: [Value::Int(e.type_id as i64), Value::Bytes(e.data)].into_iter(),
                    de,
                })
            }
            Value::Vector(v) => visitor.visit_seq(VectorSeq { v, i: 0 }),
            Value::Array(a) => {
                let iter = a.iter();
                let de = self.enter(iter.len())?;
                visitor.visit_seq(ArraySeq { iter, i: 0, de })
            }
            Value::Map(m) => {
                let iter = m.iter();
                let de = self.enter(iter.len())?;
                visitor.visit_map(MapAcc {
                    iter,
                    pending: None,
                    de,
                })
            }
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
        if let Value::Map(m) = self.value {
            if let (Some(shape), values) = m.shape_and_values() {
                if self.ctx.keys_are(m, shape, fields) {
                    let de = self.enter(values.len())?;
                    return visitor.visit_map(StructAcc {
                        values,
                        fields,
                        next: 0,
                        pending: false,
                        de,
                    });
                }
            }
        }
        self.deserialize_any(visitor)
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
                let de = self.enter(1)?;
                visitor.visit_enum(EnumAcc {
                    variant: m.key_at(0).unwrap_or(""),
                    de: de.child(m.value_at(0).unwrap_or(Value::Null)),
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

    // The common cases of the scalar requests, inlined into the struct and
    // sequence visitors; anything else goes through `deserialize_any`
    // (same visits either way).
    scalar_fast! {
        deserialize_str, deserialize_string => Value::Str(s) => visit_borrowed_str(s);
        deserialize_bool => Value::Bool(b) => visit_bool(b);
        deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64,
        deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64 => Value::Int(i) => visit_i64(i);
        deserialize_f32, deserialize_f64 => Value::Float(f) => visit_f64(f);
    }

    serde::forward_to_deserialize_any! {
        char unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// Prefixes the path of an error from element `i` of an array.
#[cold]
#[inline(never)]
fn index_path(e: Error, i: usize) -> Error {
    e.prefix_path(&format!("[{i}]"))
}

/// Prefixes the path of an error from the value of key `k`.
#[cold]
#[inline(never)]
fn key_path(e: Error, k: &str) -> Error {
    let simple = !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    if simple {
        e.prefix_path(&format!(".{k}"))
    } else {
        e.prefix_path(&format!("[{k:?}]"))
    }
}

#[cold]
fn value_before_key() -> Error {
    Error::custom("map value requested before its key")
}

struct ArraySeq<'de, 'b> {
    iter: ArrayIter<'de>,
    i: usize,
    de: Deserializer<'de, 'b>,
}

impl<'de> de::SeqAccess<'de> for ArraySeq<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some(v) = self.iter.next() else {
            return Ok(None);
        };
        let i = self.i;
        self.i += 1;
        match seed.deserialize(self.de.child(v)) {
            Ok(x) => Ok(Some(x)),
            Err(e) => Err(index_path(e, i)),
        }
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

/// The entries of any map, keys read from its shape.
struct MapAcc<'de, 'b> {
    iter: MapIter<'de>,
    pending: Option<(&'de str, Value<'de>)>,
    de: Deserializer<'de, 'b>,
}

impl<'de> de::MapAccess<'de> for MapAcc<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((k, v)) = self.iter.next() else {
            return Ok(None);
        };
        self.pending = Some((k, v));
        seed.deserialize(KeyDe(k)).map(Some)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some((k, v)) = self.pending.take() else {
            return Err(value_before_key());
        };
        seed.deserialize(self.de.child(v))
            .map_err(|e| key_path(e, k))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// The entries of a map whose keys are known to be `fields` in order: the
/// keys come from `fields`, only the values are read.
struct StructAcc<'de, 'b> {
    values: MapValues<'de>,
    fields: &'static [&'static str],
    /// Index of the next key.
    next: usize,
    /// Whether the value of key `next - 1` is still to be read.
    pending: bool,
    de: Deserializer<'de, 'b>,
}

impl<'de> de::MapAccess<'de> for StructAcc<'de, '_> {
    type Error = Error;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.pending {
            // The previous value was skipped: keep the values in step.
            self.values.next();
        }
        let Some(&k) = self.fields.get(self.next) else {
            self.pending = false;
            return Ok(None);
        };
        self.next += 1;
        self.pending = true;
        seed.deserialize(KeyDe(k)).map(Some)
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if !std::mem::take(&mut self.pending) {
            return Err(value_before_key());
        }
        let v = self.values.next().unwrap_or(Value::Null);
        seed.deserialize(self.de.child(v))
            .map_err(|e| key_path(e, self.fields[self.next - 1]))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len() - self.next)
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
    #[inline]
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
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

/// The two values of an extension (type id, bytes) as a sequence.
struct PairSeq<'de, 'b> {
    items: std::array::IntoIter<Value<'de>, 2>,
    de: Deserializer<'de, 'b>,
}

impl<'de> de::SeqAccess<'de> for PairSeq<'de, '_> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.items.next() {
            None => Ok(None),
            Some(v) => seed.deserialize(self.de.child(v)).map(Some),
        }
    }
}
