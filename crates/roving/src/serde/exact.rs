//! The kinds serde has no form for -- typed vectors, extension values and
//! integers past 128 bits -- kept exactly when a [`Value`](crate::Value)
//! is serialized into roving.
//!
//! `Serialize` for `Value` hands each of them over as a newtype struct of
//! a private name around its form for other formats (a sequence of
//! numbers, the pair `(type id, bytes)`, decimal text): other serializers
//! see that form, roving's [`Serializer`](super::Serializer) recognizes
//! the name (as it does [`Timestamp`](crate::Timestamp)'s) and reads the
//! form back into a vector record, an extension record or a big integer.

use serde::ser::{self, Serialize};

use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::ElemType;

/// The names of typed vectors, by element type code.
pub(crate) const VECTOR: [&str; 10] = [
    "$roving::private::Vector::i8",
    "$roving::private::Vector::u8",
    "$roving::private::Vector::i16",
    "$roving::private::Vector::u16",
    "$roving::private::Vector::i32",
    "$roving::private::Vector::u32",
    "$roving::private::Vector::i64",
    "$roving::private::Vector::u64",
    "$roving::private::Vector::f32",
    "$roving::private::Vector::f64",
];

/// The name of an extension value (around `(type id, bytes)`).
pub(crate) const EXT: &str = "$roving::private::Ext";

/// The name of an integer past 128 bits (around its decimal text).
pub(crate) const BIGINT: &str = "$roving::private::BigInt";

/// True for the names of this module and [`Timestamp`](crate::Timestamp)'s.
#[inline]
pub(crate) fn is_private(name: &str) -> bool {
    name.starts_with("$roving::private::")
}

/// Writes `value`, the content of the private newtype `name`, into `enc`
/// as the kind the name says.
pub(crate) fn write<T: Serialize + ?Sized>(enc: &mut Encoder, name: &str, value: &T) -> Result<()> {
    if name == super::timestamp::NAME {
        return value.serialize(super::timestamp::TimestampWriter { enc });
    }
    if name == BIGINT {
        let Grabbed::Str(text) = grab(value)? else {
            return Err(misused(name));
        };
        let big: num_bigint::BigInt = text.parse().map_err(|_| misused(name))?;
        return enc.bigint(&big);
    }
    if name == EXT {
        let mut parts = Vec::with_capacity(2);
        value.serialize(Parts(&mut parts))?;
        return match parts.as_slice() {
            [Grabbed::U64(id), Grabbed::Bytes(data)] => enc.ext(*id, data),
            _ => Err(misused(name)),
        };
    }
    let Some(code) = VECTOR.iter().position(|n| *n == name) else {
        return Err(misused(name));
    };
    let elem = ElemType::from_code(code as u8).ok_or_else(|| misused(name))?;
    let mut parts = Vec::new();
    value.serialize(Parts(&mut parts))?;
    let mut raw = Vec::with_capacity(parts.len() * elem.size());
    for p in parts {
        let ok = match (elem, p) {
            (ElemType::F32, Grabbed::F32(f)) => push(&mut raw, f.to_le_bytes()),
            (ElemType::F64, Grabbed::F64(f)) => push(&mut raw, f.to_le_bytes()),
            (ElemType::U64, Grabbed::U64(u)) => push(&mut raw, u.to_le_bytes()),
            (_, Grabbed::I64(i)) => int_bytes(&mut raw, elem, i),
            _ => false,
        };
        if !ok {
            return Err(misused(name));
        }
    }
    enc.vector_raw(elem, &raw)
}

fn push<const N: usize>(raw: &mut Vec<u8>, b: [u8; N]) -> bool {
    raw.extend_from_slice(&b);
    true
}

/// Appends `i` as an element of the integer type `elem`, if it fits.
fn int_bytes(raw: &mut Vec<u8>, elem: ElemType, i: i64) -> bool {
    let fits = match elem {
        ElemType::I8 => i8::try_from(i).is_ok(),
        ElemType::U8 => u8::try_from(i).is_ok(),
        ElemType::I16 => i16::try_from(i).is_ok(),
        ElemType::U16 => u16::try_from(i).is_ok(),
        ElemType::I32 => i32::try_from(i).is_ok(),
        ElemType::U32 => u32::try_from(i).is_ok(),
        ElemType::I64 => true,
        _ => false,
    };
    if fits {
        raw.extend_from_slice(&i.to_le_bytes()[..elem.size()]);
    }
    fits
}

#[cold]
fn misused(name: &str) -> Error {
    Error::new(ErrorKind::Unsupported).with_message(format!(
        "{name} is roving's private name for a value's exact kind, used with another content"
    ))
}

/// A scalar handed to [`Parts`] or [`grab`].
enum Grabbed {
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Str(String),
    Bytes(Vec<u8>),
}

/// The one scalar `value` serializes as.
fn grab<T: Serialize + ?Sized>(value: &T) -> Result<Grabbed> {
    let mut parts = Vec::with_capacity(1);
    value.serialize(Grab(&mut parts))?;
    parts.pop().ok_or_else(|| misused("a private newtype"))
}

/// Takes a sequence or tuple of scalars into a list.
struct Parts<'p>(&'p mut Vec<Grabbed>);

/// Takes one scalar into a list.
struct Grab<'p>(&'p mut Vec<Grabbed>);

fn not_a_scalar() -> Error {
    misused("a private newtype")
}

impl ser::Serializer for Grab<'_> {
    refuse_compound_values!(not_a_scalar());

    fn serialize_i64(self, v: i64) -> Result<()> {
        self.0.push(Grabbed::I64(v));
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.0.push(Grabbed::U64(v));
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.0.push(Grabbed::F32(v));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.0.push(Grabbed::F64(v));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.0.push(Grabbed::Str(v.to_owned()));
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.0.push(Grabbed::Bytes(v.to_vec()));
        Ok(())
    }
    refuse_scalars!(
        not_a_scalar();
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_char(char),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(not_a_scalar())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<()> {
        Err(not_a_scalar())
    }
}

impl ser::SerializeSeq for Parts<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        v.serialize(Grab(self.0))
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTuple for Parts<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<()> {
        v.serialize(Grab(self.0))
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl<'p> ser::Serializer for Parts<'p> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Parts<'p>;
    type SerializeTuple = Parts<'p>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_seq(self, _: Option<usize>) -> Result<Parts<'p>> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Parts<'p>> {
        Ok(self)
    }
    refuse_scalars!(
        not_a_scalar();
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
        Err(not_a_scalar())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<()> {
        Err(not_a_scalar())
    }
    refuse_compounds_but_sequences!(not_a_scalar());
}
