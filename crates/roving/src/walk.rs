//! The records of a document, in the order they are stored.
//!
//! A document is a header and a run of records; every reference points
//! backward, and the last record is the root. [`records`] walks them from
//! the first to the root, and gives for each one its byte offset and end,
//! its tag, its [`Kind`], its encoding ([`Record::encoding`], e.g.
//! `short str`, `map/2`, `vector<f64>`) and, for arrays, maps, shapes and
//! the root, its slot width and decoded [`Slot`]s (a map also names its
//! shape). It is what `roving stats` and `roving dump --offsets` print, and
//! a tool for looking at how a document was written.
//!
//! The walker reads only validated documents: [`records`] validates a
//! lazily opened [`Document`] first (O(n), see [`Document::validated`]).
//! Every read is still bounds-checked, so it never panics, whatever the
//! bytes; a record that does not decode is an [`Error`].
//!
//! ```
//! use roving::walk::{self, Kind, Slot};
//! let bytes = roving::json::from_json(br#"[{"a":1},{"a":"x"}]"#)?;
//! let doc = roving::Document::open(&bytes)?;
//! let recs = walk::records(&doc)?.collect::<roving::Result<Vec<_>>>()?;
//! let root = recs.last().unwrap();
//! assert_eq!(root.kind(), Kind::Root);
//! let Some(Slot::Ref(top)) = root.slots().next() else { panic!() };
//! let array = recs.iter().find(|r| r.offset() == top).unwrap();
//! assert_eq!((array.kind(), array.slot_count()), (Kind::Array, 2));
//! assert_eq!(recs.iter().filter(|r| r.kind() == Kind::Map).count(), 2);
//! assert_eq!(recs.iter().filter(|r| r.kind() == Kind::Shape).count(), 1);
//! # Ok::<(), roving::Error>(())
//! ```

use crate::error::{Error, ErrorKind, Result};
use crate::format::*;
use crate::read::{Document, Value};

/// What a record holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A string (short or long form).
    Str,
    /// A signed integer of 8 to 64 bits.
    Int,
    /// An unsigned 64-bit integer above `i64::MAX`.
    UInt,
    /// An integer of any size (sign and magnitude).
    BigInt,
    /// A float (binary32, binary64 or decimal form).
    Float,
    /// A timestamp, with or without a UTC offset.
    Timestamp,
    /// A byte string.
    Bytes,
    /// An extension value (type id and payload).
    Ext,
    /// A typed numeric vector.
    Vector,
    /// An array: one slot per element.
    Array,
    /// A map: a shape reference, then one slot per value.
    Map,
    /// A shape: the key list of maps (one slot per key), with its hash index.
    Shape,
    /// The root: one slot, the document's value; the last record.
    Root,
}

impl Kind {
    /// The lowercase name (`"str"`, `"uint"`, `"array"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Str => "str",
            Kind::Int => "int",
            Kind::UInt => "uint",
            Kind::BigInt => "bigint",
            Kind::Float => "float",
            Kind::Timestamp => "timestamp",
            Kind::Bytes => "bytes",
            Kind::Ext => "ext",
            Kind::Vector => "vector",
            Kind::Array => "array",
            Kind::Map => "map",
            Kind::Shape => "shape",
            Kind::Root => "root",
        }
    }

    /// True for arrays, maps, shapes and the root: the records with slots.
    pub fn has_slots(self) -> bool {
        matches!(self, Kind::Array | Kind::Map | Kind::Shape | Kind::Root)
    }
}

/// A decoded slot of an array, map, shape or root record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A small integer held in the slot itself.
    Int(i64),
    /// A special constant: `format::SPECIAL_NULL` (0) to
    /// `format::SPECIAL_EMPTY_MAP` (5).
    Special(u64),
    /// A reference to the record at this byte offset (before the slot's record).
    Ref(usize),
}

/// One record of a document (see the [module](self) documentation).
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    buf: &'a [u8],
    offset: usize,
    end: usize,
    tag: u8,
    kind: Kind,
    encoding: &'static str,
    /// Slot width in bytes (0 for records without slots).
    width: usize,
    /// Offset of the first slot.
    slots_at: usize,
    count: usize,
    shape: Option<usize>,
}

impl<'a> Record<'a> {
    /// Byte offset of the record (of its tag) in the document.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Byte offset just past the record: the next record's offset.
    pub fn end(&self) -> usize {
        self.end
    }

    /// Size of the record in bytes (tag included).
    pub fn len(&self) -> usize {
        self.end - self.offset
    }

    /// Always false: a record has at least its tag byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The tag byte.
    pub fn tag(&self) -> u8 {
        self.tag
    }

    /// What the record holds.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// How the record is encoded: `short str`, `str`, `i8` to `i64`, `u64`,
    /// `bigint`, `f32`, `f64`, `decimal`, `timestamp`, `timestamp+offset`,
    /// `bytes`, `ext`, `vector<T>` (`T` an element type name such as `f64`),
    /// and `array/W`, `map/W`, `shape/W`, `root/W` for a slot width of `W`
    /// bytes.
    pub fn encoding(&self) -> &'static str {
        self.encoding
    }

    /// Slot width in bytes (1, 2, 4 or 8) of arrays, maps, shapes and the
    /// root; 0 for other records.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of slots: elements of an array, values of a map, keys of a
    /// shape, 1 for the root, 0 for other records.
    pub fn slot_count(&self) -> usize {
        self.count
    }

    /// Bytes taken by the slots: [`slot_count`](Self::slot_count) times
    /// [`width`](Self::width).
    pub fn slot_bytes(&self) -> usize {
        self.count * self.width
    }

    /// The offset of a map's shape record (`None` for other records).
    pub fn shape(&self) -> Option<usize> {
        self.shape
    }

    /// The decoded slots, in order (none for records without slots). A
    /// shape's slots are its keys: references to string records, or the
    /// empty-string constant.
    pub fn slots(&self) -> Slots<'a> {
        Slots {
            buf: self.buf,
            at: self.slots_at,
            width: self.width,
            base: self.offset,
            left: self.count,
        }
    }

    /// The value of a scalar record (string, number, timestamp, byte
    /// string, extension value, vector); `None` for arrays, maps, shapes
    /// and the root, whose values are their slots.
    pub fn value(&self) -> Option<Value<'a>> {
        match self.kind {
            k if k.has_slots() => None,
            // Checked here: `record_at` may be given an offset inside a
            // record, whose bytes need not be UTF-8.
            Kind::Str => crate::read::str_record(self.buf, self.offset)
                .and_then(|b| simdutf8::basic::from_utf8(b).ok())
                .map(Value::Str),
            // No other value depends on validation for its safety.
            _ => Some(crate::read::record_value(self.buf, self.offset, 0)),
        }
    }
}

/// The slots of a [`Record`], decoded (see [`Record::slots`]).
#[derive(Clone, Debug)]
pub struct Slots<'a> {
    buf: &'a [u8],
    at: usize,
    width: usize,
    base: usize,
    left: usize,
}

impl Iterator for Slots<'_> {
    type Item = Slot;

    fn next(&mut self) -> Option<Slot> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let s = slot(self.buf, self.at, self.width, self.base);
        self.at += self.width;
        if s.is_none() {
            // Checked when the record was read: cannot happen.
            self.left = 0;
        }
        s
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

/// The records of a document, from the first to the root (see [`records`]).
/// Yields an error and stops at a record that does not decode, which a
/// validated document does not have.
#[derive(Clone, Debug)]
pub struct Records<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>>;

    fn next(&mut self) -> Option<Result<Record<'a>>> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let r = read_record(self.buf, self.pos);
        self.pos = match &r {
            Ok(rec) => rec.end,
            Err(_) => self.buf.len(), // stop
        };
        Some(r)
    }
}

/// Walks the records of `doc` in order, from the first after the header to
/// the root. A lazily opened document ([`Document::open_lazy`]) is
/// validated first, and its error returned if it is not valid.
///
/// ```
/// let bytes = roving::json::from_json(br#"["a long string, stored once", "a long string, stored once"]"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// let encodings: Vec<&str> = roving::walk::records(&doc)?
///     .map(|r| r.map(|r| r.encoding()))
///     .collect::<roving::Result<_>>()?;
/// assert_eq!(encodings, ["short str", "array/1", "root/1"]);
/// # Ok::<(), roving::Error>(())
/// ```
pub fn records<'a>(doc: &Document<'a>) -> Result<Records<'a>> {
    let doc = doc.validated()?;
    Ok(Records {
        buf: doc.as_bytes(),
        pos: crate::format::HEADER_LEN,
    })
}

/// The root record of `doc` (the last one), read from the end in O(1)
/// once the document is validated (a lazily opened one is validated first).
pub fn root<'a>(doc: &Document<'a>) -> Result<Record<'a>> {
    let doc = doc.validated()?;
    let buf = doc.as_bytes();
    let (_, pos) = crate::read::locate_root(buf)?;
    read_record(buf, pos)
}

/// The record at `offset` of `doc`, which must be the offset of a record:
/// one that a [`Slot::Ref`] or [`Record::shape`] of this document gives,
/// or a [`Record::offset`]. Any other offset gives an error or a record
/// that means nothing (never a panic). A lazily opened document is
/// validated first.
pub fn record_at<'a>(doc: &Document<'a>, offset: usize) -> Result<Record<'a>> {
    let doc = doc.validated()?;
    let buf = doc.as_bytes();
    if offset < crate::format::HEADER_LEN {
        return Err(Error::at(ErrorKind::BadReference, offset)
            .with_message("not a record offset (inside the header)"));
    }
    read_record(buf, offset)
}

// ---- byte layout -----------------------------------------------------------
//
// Where a record ends and where its slots are: the only code of this module
// that knows byte positions. It reads through the format module and the
// reader's helpers; every read is checked, so bytes that do not decode are
// an error, not a panic.

/// The slot at `at` of width `width` of the record at `base`, decoded.
fn slot(buf: &[u8], at: usize, width: usize, base: usize) -> Option<Slot> {
    Some(match crate::read::read_slot(buf, at, width, base)? {
        crate::read::Slot::Int(i) => Slot::Int(i),
        crate::read::Slot::Special(s) => Slot::Special(s),
        crate::read::Slot::Ref(p) => Slot::Ref(p),
    })
}

/// Fixed-size records: (payload length, kind, encoding).
fn fixed(tag: u8) -> Option<(usize, Kind, &'static str)> {
    Some(match tag {
        TAG_I8 => (1, Kind::Int, "i8"),
        TAG_I16 => (2, Kind::Int, "i16"),
        TAG_I32 => (4, Kind::Int, "i32"),
        TAG_I64 => (8, Kind::Int, "i64"),
        TAG_U64 => (8, Kind::UInt, "u64"),
        TAG_F32 => (4, Kind::Float, "f32"),
        TAG_F64 => (8, Kind::Float, "f64"),
        TAG_F_DEC => (5, Kind::Float, "decimal"),
        TAG_TIMESTAMP => (12, Kind::Timestamp, "timestamp"),
        TAG_TIMESTAMP_OFFSET => (16, Kind::Timestamp, "timestamp+offset"),
        _ => return None,
    })
}

fn vector_encoding(e: ElemType) -> &'static str {
    use ElemType::*;
    match e {
        I8 => "vector<i8>",
        U8 => "vector<u8>",
        I16 => "vector<i16>",
        U16 => "vector<u16>",
        I32 => "vector<i32>",
        U32 => "vector<u32>",
        I64 => "vector<i64>",
        U64 => "vector<u64>",
        F32 => "vector<f32>",
        F64 => "vector<f64>",
    }
}

fn slotted_encoding(base: u8, w: u8) -> &'static str {
    const NAMES: [[&str; 4]; 4] = [
        ["array/1", "array/2", "array/4", "array/8"],
        ["map/1", "map/2", "map/4", "map/8"],
        ["shape/1", "shape/2", "shape/4", "shape/8"],
        ["root/1", "root/2", "root/4", "root/8"],
    ];
    NAMES[((base - TAG_ARRAY) / 4) as usize & 3][w as usize & 3]
}

/// `start + len` if it is within the buffer.
fn span(buf: &[u8], start: usize, len: u64) -> Option<usize> {
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    (end <= buf.len()).then_some(end)
}

/// `count * width` bytes from `start`, if within the buffer.
fn slots_end(buf: &[u8], start: usize, count: u64, width: usize) -> Option<usize> {
    span(buf, start, count.checked_mul(width as u64)?)
}

/// Reads the record at `pos` (and checks that all its slots decode).
fn read_record(buf: &[u8], pos: usize) -> Result<Record<'_>> {
    let bad = || Error::at(ErrorKind::Truncated, pos).with_message("a record does not decode");
    let tag = *buf.get(pos).ok_or_else(bad)?;
    let p = pos + 1;
    let mut r = Record {
        buf,
        offset: pos,
        end: 0,
        tag,
        kind: Kind::Str,
        encoding: "",
        width: 0,
        slots_at: 0,
        count: 0,
        shape: None,
    };
    let varint = |at: usize| read_varint(buf, at).ok_or_else(bad);
    if tag & 0xC0 == TAG_SHORT_STR {
        r.end = span(buf, p, (tag & 0x3F) as u64).ok_or_else(bad)?;
        r.encoding = "short str";
        return Ok(r);
    }
    if let Some((len, kind, enc)) = fixed(tag) {
        (r.end, r.kind, r.encoding) = (span(buf, p, len as u64).ok_or_else(bad)?, kind, enc);
        return Ok(r);
    }
    match tag {
        TAG_STR | TAG_BIGINT_POS | TAG_BIGINT_NEG | TAG_BYTES => {
            let (len, q) = varint(p)?;
            r.end = span(buf, q, len).ok_or_else(bad)?;
            (r.kind, r.encoding) = match tag {
                TAG_STR => (Kind::Str, "str"),
                TAG_BYTES => (Kind::Bytes, "bytes"),
                _ => (Kind::BigInt, "bigint"),
            };
        }
        TAG_EXT => {
            let (_, q) = varint(p)?;
            let (len, q) = varint(q)?;
            r.end = span(buf, q, len).ok_or_else(bad)?;
            (r.kind, r.encoding) = (Kind::Ext, "ext");
        }
        TAG_VECTOR => {
            let code = *buf.get(p).ok_or_else(bad)?;
            let elem = ElemType::from_code(code)
                .ok_or_else(|| Error::at(ErrorKind::UnknownTag(code), p))?;
            let (count, q) = varint(p + 1)?;
            let start = crate::read::vector_data_start(q, elem);
            let len = count.checked_mul(elem.size() as u64).ok_or_else(bad)?;
            r.end = span(buf, start, len).ok_or_else(bad)?;
            (r.kind, r.encoding) = (Kind::Vector, vector_encoding(elem));
        }
        0x10..=0x1F => {
            let base = tag & !3;
            r.width = WIDTHS[(tag & 3) as usize];
            r.encoding = slotted_encoding(base, tag & 3);
            let count = match base {
                TAG_ARRAY => {
                    r.kind = Kind::Array;
                    let (count, q) = varint(p)?;
                    (r.slots_at, r.end) = (q, slots_end(buf, q, count, r.width).ok_or_else(bad)?);
                    count
                }
                TAG_MAP => {
                    r.kind = Kind::Map;
                    let (shape, q) = crate::read::map_shape_ref(buf, pos).ok_or_else(bad)?;
                    let sh = crate::read::Shape::at(buf, shape).ok_or_else(|| {
                        Error::at(ErrorKind::WrongTarget, p)
                            .with_message("a map's shape is not a shape")
                    })?;
                    r.shape = Some(shape);
                    let count = sh.count as u64;
                    (r.slots_at, r.end) = (q, slots_end(buf, q, count, r.width).ok_or_else(bad)?);
                    count
                }
                TAG_SHAPE => {
                    r.kind = Kind::Shape;
                    let sh = crate::read::Shape::at(buf, pos).ok_or_else(bad)?;
                    let (count, q) = varint(p)?;
                    r.slots_at = q;
                    r.end = Some(sh.end()).filter(|&e| e <= buf.len()).ok_or_else(bad)?;
                    count
                }
                _ => {
                    r.kind = Kind::Root;
                    r.slots_at = p;
                    // The slot, then the tag again.
                    r.end = span(buf, p, r.width as u64 + 1).ok_or_else(bad)?;
                    1
                }
            };
            r.count = usize::try_from(count).map_err(|_| bad())?;
            if let Some(i) =
                (0..r.count).find(|&i| slot(buf, r.slots_at + i * r.width, r.width, pos).is_none())
            {
                return Err(Error::at(ErrorKind::BadReference, r.slots_at + i * r.width));
            }
        }
        _ => return Err(Error::at(ErrorKind::UnknownTag(tag), pos)),
    }
    Ok(r)
}
