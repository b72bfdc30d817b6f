//! Values read in place: decoding one slot or record, with no allocation.

use crate::error::{Error, ErrorKind, Result};
use crate::layout::*;
use crate::read::{Array, Map, Vector};
use crate::timestamp::Timestamp;

/// A value inside a document, borrowed from its bytes.
///
/// Scalars are decoded; strings, byte strings and containers borrow the
/// document. Copying a `Value` is cheap (it is a few words).
///
/// Two values compare structurally (`==`, see the `PartialEq` impl), and
/// a value compares with plain Rust values as `serde_json::Value` does:
/// strings (`str`, `&str`, `String`) with a string, integers with an
/// integer of the same number, `f32`/`f64` with what
/// [`as_f64`](Self::as_f64) reads (integers included), `bool` with a
/// boolean; a value of another kind is unequal.
///
/// ```
/// let bytes = roving::json::from_json(br#"{"name":"Ada","n":3,"x":2.5,"ok":true}"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// let root = doc.root();
/// assert!(root.get("name").unwrap() == "Ada");
/// assert!("Ada" == root.get("name").unwrap());
/// assert!(root.get("n").unwrap() == 3);
/// assert!(root.get("n").unwrap() == 3.0);
/// assert!(root.get("x").unwrap() == 2.5);
/// assert!(root.get("ok").unwrap() == true);
/// assert!(root.get("name").unwrap() != 3); // another kind: unequal
/// # Ok::<(), roving::Error>(())
/// ```
///
/// A value converts to the plain type it holds with `TryFrom` (`&str`,
/// `&[u8]`, `bool`, `f64`, `i64`, `u64`, `i128`, `u128`, [`Timestamp`],
/// [`Array`], [`Map`], [`Vector`]), as the `as_*` accessors read it; a
/// value of another kind, or an integer out of range, is a
/// [`TypeMismatch`](crate::ErrorKind::TypeMismatch) error:
///
/// ```
/// fn name_and_age(v: roving::Value<'_>) -> roving::Result<(&str, u64)> {
///     let m: roving::Map = v.try_into()?;
///     let get = |k| m.get(k).ok_or_else(|| roving::Error::custom(format!("no {k}")));
///     Ok((get("name")?.try_into()?, get("age")?.try_into()?))
/// }
/// let bytes = roving::json::from_json(br#"[{"name":"Ada","age":36},{"name":"Bob","age":-1}]"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// assert_eq!(name_and_age(doc.root().index(0).unwrap())?, ("Ada", 36));
/// let err = name_and_age(doc.root().index(1).unwrap()).unwrap_err();
/// assert_eq!(err.to_string(), "invalid value: -1, out of the range of u64");
/// # Ok::<(), roving::Error>(())
/// ```
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
    /// The magnitude, if it fits in a `u128` (high zero bytes ignored).
    fn magnitude_u128(&self) -> Option<u128> {
        let m = self.magnitude;
        let n = m.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        if n > 16 {
            return None;
        }
        let mut w = [0u8; 16];
        w[..n].copy_from_slice(&m[..n]);
        Some(u128::from_le_bytes(w))
    }

    /// The value as a `num_bigint::BigInt`.
    pub fn to_num(&self) -> num_bigint::BigInt {
        let sign = if self.negative {
            num_bigint::Sign::Minus
        } else {
            num_bigint::Sign::Plus
        };
        num_bigint::BigInt::from_bytes_le(sign, self.magnitude)
    }

    /// Decimal text of the value. Its cost grows with the square of the
    /// digits (a million digits take a fraction of a second, ten million
    /// over a minute): for values from untrusted documents, use
    /// [`BigInt::to_decimal_limited`].
    ///
    /// ```
    /// let bytes = roving::json::from_json(b"-123456789012345678901234567890")?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let roving::Value::BigInt(b) = doc.root() else { unreachable!() };
    /// assert_eq!(b.to_decimal(), "-123456789012345678901234567890");
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn to_decimal(&self) -> String {
        self.to_num().to_string()
    }

    /// Decimal text of the value if it has at most [`MAX_DECIMAL_DIGITS`]
    /// digits (the sign not counted), else `None`, found from the length of
    /// the magnitude before any conversion for all but values of exactly
    /// [`MAX_DECIMAL_BITS`] bits. The JSON writer and serde's string form
    /// of big integers use it.
    pub fn to_decimal_limited(&self) -> Option<String> {
        let top = self
            .magnitude
            .last()
            .map_or(0, |&b| 8 - b.leading_zeros() as usize);
        let bits = (self.magnitude.len().max(1) - 1).saturating_mul(8) + top;
        if bits > MAX_DECIMAL_BITS {
            return None;
        }
        let text = self.to_decimal();
        let digits = text.len() - usize::from(text.starts_with('-'));
        (digits <= MAX_DECIMAL_DIGITS).then_some(text)
    }
}

/// Decimal text of the big integers a converter has met, by the address of
/// their magnitude and their sign, so that one shared by many places is
/// converted once (conversion is superlinear in its length). The JSON
/// writer and serde decoding keep one per conversion.
#[derive(Debug, Default)]
pub(crate) struct DecimalMemo(hashbrown::HashMap<(usize, bool), String>);

impl DecimalMemo {
    /// Most bytes the decimal text of `b` can take (at most 2.41 digits
    /// per byte of magnitude, and a sign): what a converter charges its
    /// expansion budget before converting.
    pub(crate) fn max_len(b: BigInt<'_>) -> usize {
        b.magnitude.len().saturating_mul(5) / 2 + 1
    }

    /// The decimal text of `b`, converted at its first visit: an
    /// [`ErrorKind::Unsupported`] error past
    /// [`MAX_DECIMAL_DIGITS`] digits, before any conversion work.
    pub(crate) fn text(&mut self, b: BigInt<'_>) -> crate::Result<&str> {
        use hashbrown::hash_map::Entry;
        let text = match self.0.entry((b.magnitude.as_ptr() as usize, b.negative)) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(b.to_decimal_limited().ok_or_else(too_many_digits)?),
        };
        Ok(text)
    }
}

/// The error for an integer of more than [`MAX_DECIMAL_DIGITS`] digits
/// to be converted to decimal text.
#[cold]
fn too_many_digits() -> crate::Error {
    crate::Error::new(crate::ErrorKind::Unsupported).with_message(format!(
        "an integer of more than {MAX_DECIMAL_DIGITS} digits cannot be converted to decimal \
         text (converting takes time that grows with the square of the digits; Python's int \
         has the same limit)"
    ))
}

/// Most decimal digits of an integer that roving converts to or from text
/// (JSON in and out, serde's string form of big integers): 4300, Python's
/// default limit for `int` and `str` (`sys.get_int_max_str_digits`), for
/// the same reason. Converting decimal text costs time that grows with the
/// square of its digits, so a long integer in a hostile JSON text or
/// document would stall a converter: past the limit, the conversion is an
/// [`ErrorKind::Unsupported`] error, found
/// before any conversion work. Big integers in binary (the format, the
/// encoder, Python's `dumps` and `loads`) have no such limit.
pub const MAX_DECIMAL_DIGITS: usize = 4300;

/// Bits of the largest magnitude that can have at most
/// [`MAX_DECIMAL_DIGITS`] digits: `10^4300 - 1` has 14,285 bits (so does
/// `10^4300`, of 4301 digits), and every value of more bits is at least
/// `2^14285 > 10^4300`.
pub const MAX_DECIMAL_BITS: usize = 14_285;

/// An extension value: a type id chosen by the application, and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ext<'a> {
    /// Application-defined type id.
    pub type_id: u64,
    /// Payload.
    pub data: &'a [u8],
}

/// The flag bit of a container's position word (and of a [`Document`]'s
/// mode) that marks a document opened with [`Document::open_lazy`]: its
/// strings and keys are checked for UTF-8 when read. Record positions are
/// below `isize::MAX` (a slice is never longer), so the top bit is free, and
/// a `Value` stays four words.
///
/// [`Document`]: crate::Document
/// [`Document::open_lazy`]: crate::Document::open_lazy
pub(crate) const LAZY: usize = 1 << (usize::BITS - 1);

/// The value of a decoded slot (`Null` for anything malformed, which a
/// validated document never contains). `lazy` is 0 or [`LAZY`].
#[inline]
pub(crate) fn slot_value(buf: &[u8], slot: Option<Slot>, lazy: usize) -> Value<'_> {
    match slot {
        Some(Slot::Int(i)) => Value::Int(i),
        Some(Slot::Special(s)) => special_value(s),
        Some(Slot::Ref(p)) => record_value(buf, p, lazy),
        None => Value::Null,
    }
}

/// The value of special constant `s` (`Null` for an undefined one).
#[inline]
pub(crate) fn special_value<'a>(s: u64) -> Value<'a> {
    match s {
        SPECIAL_FALSE => Value::Bool(false),
        SPECIAL_TRUE => Value::Bool(true),
        SPECIAL_EMPTY_STR => Value::Str(""),
        SPECIAL_EMPTY_ARRAY => Value::Array(Array::empty()),
        SPECIAL_EMPTY_MAP => Value::Map(Map::empty()),
        _ => Value::Null,
    }
}

/// The bytes of a string record as `&str`: checked for UTF-8 if `lazy`
/// (0 or [`LAZY`]) is set (`None` if invalid), else taken as they are.
#[inline(always)]
pub(crate) fn text(b: &[u8], lazy: usize) -> Option<&str> {
    if lazy != 0 {
        return checked_text(b);
    }
    // SAFETY: `lazy` is 0 only for values of documents opened with
    // `Document::open`, which validated every string record as UTF-8, or with
    // `Document::open_trusted`, whose caller promised a valid document (or
    // with `Value::validated`, after validating).
    Some(unsafe { std::str::from_utf8_unchecked(b) })
}

/// UTF-8 check of a string of a lazily opened document.
#[inline(never)]
fn checked_text(b: &[u8]) -> Option<&str> {
    if b.is_ascii() {
        // SAFETY: ASCII is UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(b) });
    }
    simdutf8::basic::from_utf8(b).ok()
}

/// An error of a lazily opened document at `pos`.
#[cold]
pub(crate) fn malformed(kind: ErrorKind, pos: usize) -> Error {
    Error::at(kind, pos).with_message("malformed document (opened lazily, not validated)")
}

/// The error of a container header at `pos` that does not decode.
#[cold]
pub(crate) fn header_error(buf: &[u8], pos: usize) -> Error {
    let (kind, at) = header_fault(buf, pos);
    malformed(kind, at)
}

/// Why the slot at `at` of the container at `base` reads as `Null`: `Ok`
/// for a genuine null, else the error. Called only on `Null` values of
/// lazily opened documents, so it costs nothing on the fast path.
#[cold]
pub(crate) fn check_slot(buf: &[u8], at: usize, width: usize, base: usize) -> Result<()> {
    let Some(raw) = read_uint(buf, at, width) else {
        return Err(malformed(ErrorKind::Truncated, at));
    };
    match decode_slot(raw, width, base) {
        None => Err(malformed(ErrorKind::BadReference, at)),
        Some(Slot::Special(SPECIAL_NULL)) | Some(Slot::Int(_)) => Ok(()),
        Some(Slot::Special(_)) => Err(malformed(ErrorKind::BadImmediate, at)),
        Some(Slot::Ref(p)) => Err(record_error(buf, p)),
    }
}

/// Why the record at `p` has no value (it reads as `Null`).
#[cold]
pub(crate) fn record_error(buf: &[u8], p: usize) -> Error {
    use RecordKind::*;
    let Some(&tag) = buf.get(p) else {
        return malformed(ErrorKind::Truncated, p);
    };
    let kind = match RecordKind::of(tag) {
        ShortStr | Str => match str_record(buf, p) {
            Some(_) => ErrorKind::InvalidUtf8,
            None => ErrorKind::Truncated,
        },
        Shape | PackedShape | Root => ErrorKind::WrongTarget,
        Timestamp | TimestampOffset => {
            // Nanoseconds or offset out of range, or too short.
            match RecordKind::of(tag).fixed_payload() {
                Some(len) if buf.len() - p > len => ErrorKind::NonCanonical,
                _ => ErrorKind::Truncated,
            }
        }
        Vector => match buf.get(p + 1) {
            Some(&e) if ElemType::from_code(e).is_none() => ErrorKind::UnknownTag(e),
            _ => ErrorKind::BadLength,
        },
        // A version 1 document, an unknown element type, a bad shape.
        ShapedVector => crate::layout::record_fault(buf, p).kind().clone(),
        // (Arrays and maps never get here: they always read as a value.)
        I8 | I16 | I32 | I64 | U64 | BigIntPos | BigIntNeg | F32 | F64 | FDec | Bytes | Ext
        | Array | Map => ErrorKind::Truncated,
        NumArray => num_array_error(buf, p, tag),
        Unknown => ErrorKind::UnknownTag(tag),
        // (Only in a version 1 document: see `other_record`.)
        StrArray => ErrorKind::UnknownTag(tag),
        StrideArray => crate::layout::record_fault(buf, p).kind().clone(),
        // A version 1 document, bad references, counts that differ; else
        // its values' decimal exponent is out of range.
        NumMap => match crate::layout::record_parts(buf, p) {
            None => crate::layout::record_fault(buf, p).kind().clone(),
            Some(_) => ErrorKind::NonCanonical,
        },
    };
    malformed(kind, p)
}

/// Why the number array record at `p` (tag `tag`) has no value: in a
/// version 1 document, an unknown tag; else a decimal exponent out of
/// range, or elements beyond the input.
#[cold]
fn num_array_error(buf: &[u8], p: usize, tag: u8) -> ErrorKind {
    if !allows_v2(buf) {
        return ErrorKind::UnknownTag(tag);
    }
    match num_array_record(buf, p) {
        Some(_) => ErrorKind::NonCanonical,
        None => ErrorKind::Truncated,
    }
}

/// The value of the record at `pos` (`Null` if malformed). `lazy` (0 or
/// [`LAZY`]) is passed on to containers and checks strings.
#[inline]
pub(crate) fn record_value(buf: &[u8], pos: usize, lazy: usize) -> Value<'_> {
    let Some(&tag) = buf.get(pos) else {
        return Value::Null;
    };
    // The most common records first, tested on the tag itself (no table
    // load): short strings, maps, arrays; the rest by their kind.
    if is_short_str(tag) {
        return match bytes_at(buf, pos + 1, short_str_len(tag) as u64).and_then(|b| text(b, lazy)) {
            Some(s) => Value::Str(s),
            None => Value::Null,
        };
    }
    if is_map(tag) {
        return Value::Map(Map::at(buf, pos | lazy));
    }
    if is_array(tag) {
        return Value::Array(Array::at(buf, pos | lazy));
    }
    other_record(buf, pos, RecordKind::of(tag), lazy).unwrap_or(Value::Null)
}

/// [`slot_value`] for loops that read every element (array iteration,
/// typed decoding): integer records `01`-`04` are read inline rather than
/// by [`other_record`]. (Kept apart from [`slot_value`], which key lookups
/// inline and should stay small.)
#[inline(never)]
pub(crate) fn slot_value_each(buf: &[u8], slot: Option<Slot>, lazy: usize) -> Value<'_> {
    if let Some(Slot::Ref(p)) = slot {
        if let Some(&tag) = buf.get(p) {
            if is_small_int(tag) {
                if let Some(i) = small_int_record(buf, p, tag) {
                    return Value::Int(i);
                }
            }
        }
    }
    slot_value(buf, slot, lazy)
}

/// The value of the record of `kind` at `pos` (`None` if malformed, or
/// not a value record).
#[inline(never)]
fn other_record(buf: &[u8], pos: usize, kind: RecordKind, lazy: usize) -> Option<Value<'_>> {
    use RecordKind as K;
    let p = pos + 1;
    Some(match kind {
        K::ShortStr | K::Str => Value::Str(text(str_record(buf, pos)?, lazy)?),
        K::I8 => Value::Int(i8::from_le_bytes(fixed(buf, p)?) as i64),
        K::I16 => Value::Int(i16::from_le_bytes(fixed(buf, p)?) as i64),
        K::I32 => Value::Int(i32::from_le_bytes(fixed(buf, p)?) as i64),
        K::I64 => Value::Int(i64::from_le_bytes(fixed(buf, p)?)),
        K::U64 => {
            let v = u64::from_le_bytes(fixed(buf, p)?);
            if v <= i64::MAX as u64 {
                Value::Int(v as i64)
            } else {
                Value::UInt(v)
            }
        }
        K::F32 => Value::Float(f32_to_f64_exact(f32::from_le_bytes(fixed(buf, p)?))),
        K::F64 => Value::Float(f64::from_le_bytes(fixed(buf, p)?)),
        K::FDec => {
            let [e, m0, m1, m2, m3] = fixed::<5>(buf, p)?;
            Value::Float(f_dec_value(i32::from_le_bytes([m0, m1, m2, m3]), e as i8))
        }
        K::BigIntPos | K::BigIntNeg => Value::BigInt(BigInt {
            negative: kind == K::BigIntNeg,
            magnitude: length_prefixed(buf, pos)?,
        }),
        K::Timestamp | K::TimestampOffset => {
            let tag = *buf.get(pos)?;
            let (seconds, nanos, offset) = timestamp_record(buf, pos, tag)?;
            // Checks the ranges, which only a lazily opened document can break.
            Value::Timestamp(Timestamp::new(seconds, nanos, offset)?)
        }
        K::Bytes => Value::Bytes(length_prefixed(buf, pos)?),
        K::Ext => {
            let (type_id, data) = ext_record(buf, pos)?;
            Value::Ext(Ext { type_id, data })
        }
        K::Vector => Value::Vector(Vector::at(buf, pos)?),
        K::ShapedVector => Value::Vector(Vector::shaped_at(buf, pos)?),
        K::Array => Value::Array(Array::at(buf, pos | lazy)),
        K::Map => Value::Map(Map::at(buf, pos | lazy)),
        K::NumArray => num_array_value(buf, pos, lazy)?,
        // Version 2 only: a lazily opened version 1 document holding one
        // is malformed (a validated one never does).
        K::StrArray if lazy != 0 && !allows_v2(buf) => return None,
        K::StrArray => Value::Array(Array::at(buf, pos | lazy)),
        // A lazily opened document's must decode (a version 2 document,
        // a stride in range, elements after the header).
        K::StrideArray if lazy != 0 && StrideArray::at(buf, pos).is_none() => return None,
        K::StrideArray => Value::Array(Array::at(buf, pos | lazy)),
        // A lazily opened document's must decode (a version 2 document,
        // references to a shape and to a number array of as many
        // elements, a decimal exponent in range).
        K::NumMap if lazy != 0 && !lazy_num_map_ok(buf, pos) => return None,
        K::NumMap => Value::Map(Map::at(buf, pos | lazy)),
        K::Shape | K::PackedShape | K::Root | K::Unknown => return None,
    })
}

/// Whether the map of numbers at `pos` of a lazily opened document reads:
/// a version 2 document, its references decode to a shape and to a
/// number array of as many elements, whose decimal exponent (if it has
/// one) is in range.
#[cold]
fn lazy_num_map_ok(buf: &[u8], pos: usize) -> bool {
    allows_v2(buf) && num_map_record(buf, pos).is_some_and(|m| m.values.elem.exponent_in_range())
}

/// The value of the number array record at `pos`: an array, whose
/// elements are read from the record's bytes. A lazily opened document
/// (`lazy` set) must be of version 2 and a decimal one's exponent in range
/// (`None` otherwise: it reads as `Null`).
#[inline(never)]
fn num_array_value(buf: &[u8], pos: usize, lazy: usize) -> Option<Value<'_>> {
    if lazy != 0 {
        if !allows_v2(buf) {
            return None;
        }
        if !num_array_record(buf, pos)?.elem.exponent_in_range() {
            return None;
        }
    }
    Some(Value::Array(Array::at(buf, pos | lazy)))
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

    /// The timestamp, if this is one.
    pub fn as_timestamp(&self) -> Option<Timestamp> {
        match *self {
            Value::Timestamp(t) => Some(t),
            _ => None,
        }
    }

    /// The typed numeric vector, if this is one.
    pub fn as_vector(&self) -> Option<Vector<'a>> {
        match *self {
            Value::Vector(v) => Some(v),
            _ => None,
        }
    }

    /// The extension value, if this is one.
    pub fn as_ext(&self) -> Option<Ext<'a>> {
        match *self {
            Value::Ext(e) => Some(e),
            _ => None,
        }
    }

    /// The integer as a big integer, if this is an integer of any size
    /// (64-bit ones included).
    ///
    /// ```
    /// let bytes = roving::json::from_json(b"[5, 123456789012345678901234567890]")?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let big = doc.root().index(1).unwrap();
    /// assert!(matches!(big, roving::Value::BigInt(_)));
    /// assert_eq!(big.as_bigint().unwrap().to_string(), "123456789012345678901234567890");
    /// assert_eq!(doc.root().index(0).unwrap().as_bigint(), Some(5.into()));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn as_bigint(&self) -> Option<num_bigint::BigInt> {
        match *self {
            Value::Int(i) => Some(i.into()),
            Value::UInt(u) => Some(u.into()),
            Value::BigInt(b) => Some(b.to_num()),
            _ => None,
        }
    }

    /// The integer, if this is an integer that fits in `i128` (64-bit ones
    /// and big ones within range), as [`Encoder::i128`](crate::Encoder::i128)
    /// writes it.
    ///
    /// ```
    /// let mut enc = roving::Encoder::new();
    /// enc.i128(i128::MIN)?;
    /// let bytes = enc.finish()?;
    /// let doc = roving::Document::open(&bytes)?;
    /// assert_eq!(doc.root().as_i128(), Some(i128::MIN));
    /// assert_eq!(doc.root().as_i64(), None); // beyond 64 bits
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn as_i128(&self) -> Option<i128> {
        match *self {
            Value::Int(i) => Some(i.into()),
            Value::UInt(u) => Some(u.into()),
            Value::BigInt(b) => {
                let m = b.magnitude_u128()?;
                if b.negative {
                    0i128.checked_sub_unsigned(m)
                } else {
                    i128::try_from(m).ok()
                }
            }
            _ => None,
        }
    }

    /// The integer, if this is a non-negative integer that fits in `u128`.
    ///
    /// ```
    /// let bytes = roving::to_vec(&u128::MAX)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// assert_eq!(doc.root().as_u128(), Some(u128::MAX));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn as_u128(&self) -> Option<u128> {
        match *self {
            Value::Int(i) => u128::try_from(i).ok(),
            Value::UInt(u) => Some(u.into()),
            Value::BigInt(b) if !b.negative => b.magnitude_u128(),
            _ => None,
        }
    }

    /// Length of the document holding this value, for sizing limits: a
    /// container's document, or for a value that borrows its bytes from the
    /// document without knowing it (a string, byte string, big integer,
    /// extension or vector) the part of the document it spans at least, so
    /// that a long one at the root is not held to the limits of an empty
    /// document (0 for values that hold no bytes).
    pub(crate) fn doc_len(&self) -> usize {
        match self {
            Value::Array(a) => a.doc_len(),
            Value::Map(m) => m.doc_len(),
            Value::Str(s) => s.len(),
            Value::Bytes(b) => b.len(),
            Value::BigInt(b) => b.magnitude.len(),
            Value::Ext(e) => e.data.len(),
            Value::Vector(v) => v.offset().saturating_add(v.raw().len()),
            Value::Null
            | Value::Bool(_)
            | Value::Int(_)
            | Value::UInt(_)
            | Value::Float(_)
            | Value::Timestamp(_) => 0,
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

    /// Element `i` of an array (`None` for other values, vectors included,
    /// or out of range).
    #[inline(always)]
    pub fn index(&self, i: usize) -> Option<Value<'a>> {
        match self {
            Value::Array(a) => a.get(i),
            _ => None,
        }
    }

    /// The value of `key` in a map (`None` otherwise or if absent).
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"{"name":"Ada","tags":["x"]}"#)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let root = doc.root();
    /// assert_eq!(root.get("name").and_then(|v| v.as_str()), Some("Ada"));
    /// assert!(root.get("missing").is_none());
    /// assert_eq!(root.get("tags").and_then(|t| t.index(0)).and_then(|v| v.as_str()), Some("x"));
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline(always)]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        match self {
            Value::Map(m) => m.get(key),
            _ => None,
        }
    }
}

impl<'a> Value<'a> {
    /// True for an array or map of a document opened with
    /// [`Document::open_lazy`](crate::Document::open_lazy) (whose reads are checked).
    pub fn is_lazy(&self) -> bool {
        match self {
            Value::Array(a) => a.lazy() != 0,
            Value::Map(m) => m.lazy() != 0,
            _ => false,
        }
    }

    /// The same value, its document validated: for an array or map of a
    /// lazily opened document, validates the whole document (O(n), nothing
    /// is cached) and returns the value marked validated, so that walking it
    /// costs no further checks; other values are returned as they are.
    ///
    /// Operations on whole values (`==`, JSON output, serde decoding,
    /// copying into an encoder) call this first, so they stay linear in
    /// the document's size whatever its bytes.
    pub fn validated(self) -> crate::Result<Value<'a>> {
        Ok(match self {
            Value::Array(a) if a.lazy() != 0 => {
                crate::validate::validate(a.buf())?;
                Value::Array(Array::at(a.buf(), a.pos()))
            }
            Value::Map(m) if m.lazy() != 0 => {
                crate::validate::validate(m.buf())?;
                Value::Map(Map::at(m.buf(), m.pos()))
            }
            v => v,
        })
    }

    /// [`index`](Self::index), reporting malformed bytes of a lazily opened
    /// document as an error (see [`Array::try_get`]).
    pub fn try_index(&self, i: usize) -> crate::Result<Option<Value<'a>>> {
        match self {
            Value::Array(a) => a.try_get(i),
            _ => Ok(None),
        }
    }

    /// [`get`](Self::get), reporting malformed bytes of a lazily opened
    /// document as an error (see [`Map::try_get`]).
    pub fn try_get(&self, key: &str) -> crate::Result<Option<Value<'a>>> {
        match self {
            Value::Map(m) => m.try_get(key),
            _ => Ok(None),
        }
    }
}

impl PartialEq for Value<'_> {
    /// Structural equality (floats compare by bits, so NaN equals the same
    /// NaN). Linear in the size of the two documents, shared subtrees
    /// included (each distinct subtree is numbered once), and iterative:
    /// deep documents do not overflow the stack.
    ///
    /// Values of different kinds are unequal (`1` and `1.0`, a vector and
    /// an array of the same numbers), and a map's order is part of it:
    /// maps are equal when they have the same keys in the same order with
    /// equal values, unlike `HashMap`s or `serde_json::Value` maps (a
    /// `HashMap` serialized twice may list its keys in two orders).
    ///
    /// ```
    /// let doc = |json: &str| roving::json::from_json(json.as_bytes()).unwrap();
    /// let (a, b, c) = (doc(r#"{"x":1,"y":2}"#), doc(r#"{"x":1,"y":2}"#), doc(r#"{"y":2,"x":1}"#));
    /// let root = |bytes| roving::Document::open(bytes).unwrap().root();
    /// assert!(root(&a) == root(&b));
    /// assert!(root(&a) != root(&c)); // same entries, another order
    /// ```
    ///
    /// Containers of a lazily opened document are compared after validating
    /// their document ([`Value::validated`]; the bytes of an unvalidated
    /// document could make numbering quadratic): one that fails validation
    /// is unequal to everything.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Array(a), Value::Array(b)) if a.len() != b.len() => false,
            (Value::Map(a), Value::Map(b)) if a.len() != b.len() => false,
            (Value::Array(_), Value::Array(_)) | (Value::Map(_), Value::Map(_)) => {
                let (Ok(a), Ok(b)) = (self.validated(), other.validated()) else {
                    return false;
                };
                let mut canon = crate::read::equal::Canon::default();
                canon.id(a) == canon.id(b)
            }
            (a, b) => scalar_eq(a, b),
        }
    }
}

/// Equality of two values, one of them not a container (values of
/// different kinds are unequal). Exhaustive on `a`'s kind: a new kind of
/// value must say how it compares.
fn scalar_eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    use Value::*;
    match a {
        Null => matches!(b, Null),
        Bool(a) => matches!(b, Bool(b) if a == b),
        Int(a) => matches!(b, Int(b) if a == b),
        UInt(a) => matches!(b, UInt(b) if a == b),
        BigInt(a) => matches!(b, BigInt(b) if a == b),
        Float(a) => matches!(b, Float(b) if a.to_bits() == b.to_bits()),
        Str(a) => matches!(b, Str(b) if a == b),
        Bytes(a) => matches!(b, Bytes(b) if a == b),
        Timestamp(a) => matches!(b, Timestamp(b) if a == b),
        Ext(a) => matches!(b, Ext(b) if a == b),
        Vector(a) => {
            matches!(b, Vector(b) if a.elem_type() == b.elem_type() && a.raw() == b.raw() && a.same_shape(b))
        }
        // Containers are compared by `eq` (here only against another kind).
        Array(_) | Map(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `small_int_record` (and `slot_value_each`) read the integer records `01`-`04`
    /// as `other_record` does.
    #[test]
    fn fixed_int_matches_other_record() {
        fn each(b: &[u8]) -> Value<'_> {
            slot_value_each(b, Some(Slot::Ref(3)), 0)
        }
        let values = [
            0i64,
            1,
            -1,
            127,
            -128,
            300,
            -300,
            32767,
            -32768,
            1 << 20,
            -(1 << 20),
            i32::MAX as i64,
            i32::MIN as i64,
            i64::MAX,
            i64::MIN,
            0x1234_5678_9ABC,
        ];
        for v in values {
            for (tag, w) in [(TAG_I8, 1usize), (TAG_I16, 2), (TAG_I32, 4), (TAG_I64, 8)] {
                let b = v.to_le_bytes();
                // Truncated to the width: the record holds the low bytes.
                let mut buf = vec![0xAAu8; 3];
                buf.push(tag);
                buf.extend_from_slice(&b[..w]);
                let exact = buf.clone();
                buf.extend_from_slice(&[0x55; 9]);
                let want = other_record(&exact, 3, RecordKind::of(tag), 0).and_then(|v| v.as_i64());
                assert_eq!(small_int_record(&buf, 3, tag), want, "tag {tag} value {v}");
                assert!(matches!(each(&buf), Value::Int(i) if Some(i) == want));
                // At the end of the buffer (fewer than 8 bytes after the
                // tag), the record is left to other_record.
                let direct = if w == 8 { want } else { None };
                assert_eq!(small_int_record(&exact, 3, tag), direct);
                assert!(matches!(each(&exact), Value::Int(i) if Some(i) == want));
            }
        }
    }
}
