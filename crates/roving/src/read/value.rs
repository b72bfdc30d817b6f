//! Values read in place: decoding one slot or record, with no allocation.

use crate::format::*;
use crate::read::{Array, Map, Vector};
use crate::timestamp::Timestamp;

/// A value inside a document, borrowed from its bytes.
///
/// Scalars are decoded; strings, byte strings and containers borrow the
/// document. Copying a `Value` is cheap (it is a few words).
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// JSON `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer that fits in `i64`.
    Int(i64),
    /// An integer above `i64::MAX` that fits in `u64`.
    UInt(u64),
    /// An integer outside the 64-bit ranges.
    BigInt(BigInt<'a>),
    /// A float (binary32 records are widened exactly).
    Float(f64),
    /// A UTF-8 string.
    Str(&'a str),
    /// A byte string.
    Bytes(&'a [u8]),
    /// A timestamp.
    Timestamp(Timestamp),
    /// An array.
    Array(Array<'a>),
    /// A map with string keys, in insertion order.
    Map(Map<'a>),
    /// A typed numeric vector.
    Vector(Vector<'a>),
    /// An extension value: a user type id and its bytes.
    Ext(Ext<'a>),
}

/// An arbitrary-precision integer, as a sign and a little-endian magnitude.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BigInt<'a> {
    /// True for negative values.
    pub negative: bool,
    /// Magnitude, little endian, without high zero bytes.
    pub magnitude: &'a [u8],
}

impl BigInt<'_> {
    /// The value as a `num_bigint::BigInt`.
    pub fn to_num(&self) -> num_bigint::BigInt {
        let sign = if self.negative {
            num_bigint::Sign::Minus
        } else {
            num_bigint::Sign::Plus
        };
        num_bigint::BigInt::from_bytes_le(sign, self.magnitude)
    }

    /// Decimal text of the value.
    pub fn to_decimal(&self) -> String {
        self.to_num().to_string()
    }
}

/// An extension value: a type id chosen by the application, and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ext<'a> {
    /// Application-defined type id.
    pub type_id: u64,
    /// Payload.
    pub data: &'a [u8],
}

/// Resolved target of a slot: an immediate value or a record position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A small integer held in the slot.
    Int(i64),
    /// A special constant (`SPECIAL_*`).
    Special(u64),
    /// A reference to the record at this position.
    Ref(usize),
}

/// Decodes a raw slot of `width` bytes of a container whose record starts at `base`.
/// Returns `None` for references that do not point strictly before `base`.
#[inline(always)]
pub(crate) fn decode_slot(raw: u64, width: usize, base: usize) -> Option<Slot> {
    // References first (the common case on lookups), without a jump table:
    // a relative distance `d` gives `base - d`, which is below `base` exactly
    // when `1 <= d <= base` (otherwise it wraps around), and an absolute
    // target must be below `base` too: one comparison for both kinds.
    if raw & 1 == 0 {
        let p = (raw >> 2) as usize;
        let t = if raw & 2 == 0 {
            base.wrapping_sub(p)
        } else {
            p
        };
        return if t < base { Some(Slot::Ref(t)) } else { None };
    }
    if raw & 2 == 0 {
        let sh = 64 - width as u32 * 8;
        Some(Slot::Int(((raw as i64) << sh) >> (sh + 2)))
    } else {
        Some(Slot::Special(raw >> 2))
    }
}

/// Reads the slot at `pos` and decodes it.
#[inline(always)]
pub(crate) fn read_slot(buf: &[u8], pos: usize, width: usize, base: usize) -> Option<Slot> {
    decode_slot(read_uint(buf, pos, width)?, width, base)
}

/// The value of a decoded slot (`Null` for anything malformed, which a
/// validated document never contains).
#[inline]
pub(crate) fn slot_value(buf: &[u8], slot: Option<Slot>) -> Value<'_> {
    match slot {
        Some(Slot::Int(i)) => Value::Int(i),
        Some(Slot::Special(s)) => special_value(s),
        Some(Slot::Ref(p)) => record_value(buf, p),
        None => Value::Null,
    }
}

#[inline]
fn special_value<'a>(s: u64) -> Value<'a> {
    match s {
        SPECIAL_FALSE => Value::Bool(false),
        SPECIAL_TRUE => Value::Bool(true),
        SPECIAL_EMPTY_STR => Value::Str(""),
        SPECIAL_EMPTY_ARRAY => Value::Array(Array::empty()),
        SPECIAL_EMPTY_MAP => Value::Map(Map::empty()),
        _ => Value::Null,
    }
}

/// Borrow of `len` bytes at `pos`.
#[inline(always)]
pub(crate) fn bytes_at(buf: &[u8], pos: usize, len: u64) -> Option<&[u8]> {
    let end = pos.checked_add(usize::try_from(len).ok()?)?;
    buf.get(pos..end)
}

/// Reads the string record at `pos`, if it is one.
#[inline(always)]
pub(crate) fn str_record(buf: &[u8], pos: usize) -> Option<&[u8]> {
    let tag = *buf.get(pos)?;
    if tag & 0xC0 == TAG_SHORT_STR {
        bytes_at(buf, pos + 1, (tag & 0x3F) as u64)
    } else if tag == TAG_STR {
        let (len, p) = read_varint(buf, pos + 1)?;
        bytes_at(buf, p, len)
    } else {
        None
    }
}

/// Turns bytes of a validated document into `&str`.
#[inline(always)]
pub(crate) fn as_str(b: &[u8]) -> &str {
    // SAFETY: every string record reachable from a `Document` was checked to be
    // UTF-8 by the validator, or the caller of `Document::open_trusted`
    // promised that the bytes came from a valid document.
    unsafe { std::str::from_utf8_unchecked(b) }
}

fn fixed<const N: usize>(buf: &[u8], pos: usize) -> Option<[u8; N]> {
    buf.get(pos..pos.checked_add(N)?)?.try_into().ok()
}

/// The value of the record at `pos` (`Null` if malformed).
#[inline]
pub(crate) fn record_value(buf: &[u8], pos: usize) -> Value<'_> {
    let Some(&tag) = buf.get(pos) else {
        return Value::Null;
    };
    // The most common records first: short strings, maps, arrays.
    if tag & 0xC0 == TAG_SHORT_STR {
        return match bytes_at(buf, pos + 1, (tag & 0x3F) as u64) {
            Some(b) => Value::Str(as_str(b)),
            None => Value::Null,
        };
    }
    let v = match tag {
        0x14..=0x17 => Value::Map(Map::at(buf, pos)),
        0x10..=0x13 => Value::Array(Array::at(buf, pos)),
        _ => other_record(buf, pos, tag).unwrap_or(Value::Null),
    };
    v
}

#[inline(never)]
fn other_record(buf: &[u8], pos: usize, tag: u8) -> Option<Value<'_>> {
    let p = pos + 1;
    Some(match tag {
        TAG_STR => {
            let (len, p) = read_varint(buf, p)?;
            Value::Str(as_str(bytes_at(buf, p, len)?))
        }
        TAG_I8 => Value::Int(i8::from_le_bytes(fixed(buf, p)?) as i64),
        TAG_I16 => Value::Int(i16::from_le_bytes(fixed(buf, p)?) as i64),
        TAG_I32 => Value::Int(i32::from_le_bytes(fixed(buf, p)?) as i64),
        TAG_I64 => Value::Int(i64::from_le_bytes(fixed(buf, p)?)),
        TAG_U64 => {
            let v = u64::from_le_bytes(fixed(buf, p)?);
            if v <= i64::MAX as u64 {
                Value::Int(v as i64)
            } else {
                Value::UInt(v)
            }
        }
        TAG_F32 => Value::Float(f32_to_f64_exact(f32::from_le_bytes(fixed(buf, p)?))),
        TAG_F64 => Value::Float(f64::from_le_bytes(fixed(buf, p)?)),
        TAG_F_DEC => {
            let [e, m0, m1, m2, m3] = fixed::<5>(buf, p)?;
            Value::Float(f_dec_value(i32::from_le_bytes([m0, m1, m2, m3]), e as i8))
        }
        TAG_BIGINT_POS | TAG_BIGINT_NEG => {
            let (len, p) = read_varint(buf, p)?;
            Value::BigInt(BigInt {
                negative: tag == TAG_BIGINT_NEG,
                magnitude: bytes_at(buf, p, len)?,
            })
        }
        TAG_TIMESTAMP | TAG_TIMESTAMP_OFFSET => {
            let seconds = i64::from_le_bytes(fixed(buf, p)?);
            let nanos = u32::from_le_bytes(fixed(buf, p + 8)?);
            let offset = if tag == TAG_TIMESTAMP_OFFSET {
                Some(i32::from_le_bytes(fixed(buf, p + 12)?))
            } else {
                None
            };
            Value::Timestamp(Timestamp {
                seconds,
                nanos,
                offset,
            })
        }
        TAG_BYTES => {
            let (len, p) = read_varint(buf, p)?;
            Value::Bytes(bytes_at(buf, p, len)?)
        }
        TAG_EXT => {
            let (type_id, p) = read_varint(buf, p)?;
            let (len, p) = read_varint(buf, p)?;
            Value::Ext(Ext {
                type_id,
                data: bytes_at(buf, p, len)?,
            })
        }
        TAG_VECTOR => Value::Vector(Vector::at(buf, pos)?),
        _ => return None,
    })
}

impl<'a> Value<'a> {
    /// True for `Null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&'a str> {
        match *self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is an integer that fits in `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The integer, if this is a non-negative integer that fits in `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Int(i) if i >= 0 => Some(i as u64),
            Value::UInt(u) => Some(u),
            _ => None,
        }
    }

    /// The number as `f64` (integers are converted, possibly rounding).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Float(f) => Some(f),
            Value::Int(i) => Some(i as f64),
            Value::UInt(u) => Some(u as f64),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The byte string, if this is one.
    pub fn as_bytes(&self) -> Option<&'a [u8]> {
        match *self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<Array<'a>> {
        match *self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The map, if this is one.
    pub fn as_map(&self) -> Option<Map<'a>> {
        match *self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Length of the document holding this value, for sizing limits
    /// (0 for values that do not point into a document).
    pub(crate) fn doc_len(&self) -> usize {
        match self {
            Value::Array(a) => a.doc_len(),
            Value::Map(m) => m.doc_len(),
            _ => 0,
        }
    }

    /// A short name of the value's type (`"null"`, `"int"`, `"str"`, `"map"`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::UInt(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Timestamp(_) => "timestamp",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
            Value::Vector(_) => "vector",
            Value::Ext(_) => "ext",
        }
    }

    /// Element `i` of an array or vector-less array (`None` otherwise or out of range).
    #[inline]
    pub fn index(&self, i: usize) -> Option<Value<'a>> {
        match self {
            Value::Array(a) => a.get(i),
            _ => None,
        }
    }

    /// The value of `key` in a map (`None` otherwise or if absent).
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        match self {
            Value::Map(m) => m.get(key),
            _ => None,
        }
    }
}

impl PartialEq for Value<'_> {
    /// Structural equality (floats compare by bits, so NaN equals the same
    /// NaN). Linear in the size of the two documents, shared subtrees
    /// included (each distinct subtree is numbered once), and iterative:
    /// deep documents do not overflow the stack.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Array(a), Value::Array(b)) if a.len() != b.len() => false,
            (Value::Map(a), Value::Map(b)) if a.len() != b.len() => false,
            (Value::Array(_), Value::Array(_)) | (Value::Map(_), Value::Map(_)) => {
                let mut canon = crate::read::equal::Canon::default();
                canon.id(*self) == canon.id(*other)
            }
            (a, b) => scalar_eq(a, b),
        }
    }
}

fn scalar_eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    {
        use Value::*;
        match (a, b) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (UInt(a), UInt(b)) => a == b,
            (BigInt(a), BigInt(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (Str(a), Str(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Timestamp(a), Timestamp(b)) => a == b,
            (Ext(a), Ext(b)) => a == b,
            (Vector(a), Vector(b)) => a.elem_type() == b.elem_type() && a.raw() == b.raw(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `decode_slot` as FORMAT.md section 5 states it.
    fn reference_decode(raw: u64, width: usize, base: usize) -> Option<Slot> {
        let p = raw >> 2;
        match raw & 3 {
            SLOT_INT => {
                let sh = 64 - width as u32 * 8;
                Some(Slot::Int(((raw as i64) << sh) >> (sh + 2)))
            }
            SLOT_SPECIAL => Some(Slot::Special(p)),
            SLOT_REL => (p >= 1 && p <= base as u64).then(|| Slot::Ref(base - p as usize)),
            _ => (p < base as u64).then_some(Slot::Ref(p as usize)),
        }
    }

    #[test]
    fn decode_slot_matches_the_spec() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for n in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let width = WIDTHS[(n & 3) as usize];
            let raw = x & (u64::MAX >> (64 - 8 * width as u32));
            // Small and large payloads, bases near the payload.
            let raw = if n % 5 == 0 { raw & 0x3FF } else { raw };
            let base = match n % 4 {
                0 => (raw >> 2) as usize,
                1 => ((raw >> 2) as usize).wrapping_add(1),
                2 => (x >> 40) as usize,
                _ => usize::MAX >> 1,
            };
            assert_eq!(
                decode_slot(raw, width, base),
                reference_decode(raw, width, base),
                "raw {raw:#x} width {width} base {base}"
            );
        }
    }
}
