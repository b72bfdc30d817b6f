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
//! bytes; a record that does not decode is an [`Error`]. The walker knows
//! no byte position itself: where a record ends and where its slots, its
//! shape and its encoding are come from [`crate::layout`].
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
use crate::layout::{self, RecordKind, RecordParts, SlotRun};
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
    /// An array of numbers of one element type, packed (version 2): no
    /// slots.
    NumArray,
    /// A map: a shape reference, then one slot per value.
    Map,
    /// A shape: the key list of maps (one slot per key), with its hash index.
    Shape,
    /// The root: one slot, the document's value; the last record.
    Root,
    /// An array of strings stored packed (format version 2): no slots;
    /// its [`value`](Record::value) is the array.
    StrArray,
    /// An array whose elements are the records right before it, at equal
    /// steps (format version 2): no slots; its [`slots`](Record::slots)
    /// are references to those records.
    StrideArray,
    /// A shape whose keys are packed as a string array's, with a dense
    /// hash index unless they are in order (format version 2): no slots.
    PackedShape,
    /// A map whose values are the elements of a number array record
    /// (format version 2): no slots; its [`shape`](Record::shape) is its
    /// shape, and its [`slots`](Record::slots) one reference, to that
    /// number array.
    NumMap,
}

impl Kind {
    /// The kind of the records of a [`RecordKind`]: the integer kinds
    /// `I8` to `I64` are [`Int`](Kind::Int), both big integer signs
    /// [`BigInt`](Kind::BigInt), the three float encodings
    /// [`Float`](Kind::Float), both string forms [`Str`](Kind::Str);
    /// `None` for [`RecordKind::Unknown`].
    ///
    /// ```
    /// use roving::layout::RecordKind;
    /// use roving::walk::Kind;
    /// assert_eq!(Kind::of(RecordKind::ShortStr), Some(Kind::Str));
    /// assert_eq!(Kind::of(RecordKind::FDec), Some(Kind::Float));
    /// assert_eq!(Kind::of(RecordKind::Unknown), None);
    /// ```
    pub fn of(kind: RecordKind) -> Option<Kind> {
        use RecordKind as K;
        Some(match kind {
            K::ShortStr | K::Str => Kind::Str,
            K::I8 | K::I16 | K::I32 | K::I64 => Kind::Int,
            K::U64 => Kind::UInt,
            K::BigIntPos | K::BigIntNeg => Kind::BigInt,
            K::F32 | K::F64 | K::FDec => Kind::Float,
            K::Timestamp | K::TimestampOffset => Kind::Timestamp,
            K::Bytes => Kind::Bytes,
            K::Ext => Kind::Ext,
            K::Vector => Kind::Vector,
            K::ShapedVector => Kind::Vector,
            K::Array => Kind::Array,
            K::NumArray => Kind::NumArray,
            K::Map => Kind::Map,
            K::Shape => Kind::Shape,
            K::Root => Kind::Root,
            K::StrArray => Kind::StrArray,
            K::StrideArray => Kind::StrideArray,
            K::PackedShape => Kind::PackedShape,
            K::NumMap => Kind::NumMap,
            K::Unknown => return None,
        })
    }

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
            Kind::NumArray => "numbers",
            Kind::Map => "map",
            Kind::Shape => "shape",
            Kind::Root => "root",
            Kind::StrArray => "strings",
            Kind::StrideArray => "stride",
            Kind::PackedShape => "packed shape",
            Kind::NumMap => "map of numbers",
        }
    }

    /// True for arrays, maps, shapes and the root: the records with slots.
    pub fn has_slots(self) -> bool {
        match self {
            Kind::Array | Kind::Map | Kind::Shape | Kind::Root => true,
            Kind::Str
            | Kind::Int
            | Kind::UInt
            | Kind::BigInt
            | Kind::Float
            | Kind::Timestamp
            | Kind::Bytes
            | Kind::Ext
            | Kind::Vector
            | Kind::NumArray
            | Kind::StrArray
            | Kind::StrideArray
            | Kind::PackedShape
            | Kind::NumMap => false,
        }
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
    kind: Kind,
    /// Its end, slots, shape and element type, as the layout decodes them.
    parts: RecordParts,
}

impl<'a> Record<'a> {
    /// Byte offset of the record (of its tag) in the document.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Byte offset just past the record: the next record's offset.
    pub fn end(&self) -> usize {
        self.parts.end
    }

    /// Size of the record in bytes (tag included).
    pub fn len(&self) -> usize {
        self.parts.end - self.offset
    }

    /// Always false: a record has at least its tag byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The tag byte.
    pub fn tag(&self) -> u8 {
        self.parts.tag
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
        self.parts.encoding()
    }

    /// Slot width in bytes (1, 2, 4 or 8) of arrays, maps, shapes and the
    /// root; 0 for other records (a number array's element size is in
    /// [`numbers`](Self::numbers)).
    pub fn width(&self) -> usize {
        self.parts.slots.map_or(0, |s| s.width)
    }

    /// Number of slots: elements of an array, values of a map, keys of a
    /// shape, 1 for the root; 0 for other records (a number array has its
    /// elements in the record, not in slots: see [`numbers`](Self::numbers)).
    pub fn slot_count(&self) -> usize {
        self.parts.slots.map_or(0, |s| s.count)
    }

    /// The element size in bytes (1, 2, 4 or 8) and the number of elements
    /// of a number array record; `None` for other records.
    pub fn numbers(&self) -> Option<(usize, usize)> {
        match self.kind {
            Kind::NumArray => {
                layout::num_array_record(self.buf, self.offset).map(|p| (p.elem.size(), p.count))
            }
            _ => None,
        }
    }

    /// Bytes taken by the slots: [`slot_count`](Self::slot_count) times
    /// [`width`](Self::width).
    pub fn slot_bytes(&self) -> usize {
        self.parts.slots.map_or(0, |s| s.count * s.width)
    }

    /// The offset of a map's shape record, of either kind of map (`None`
    /// for other records).
    pub fn shape(&self) -> Option<usize> {
        self.parts.shape
    }

    /// The keys of a packed shape record (format version 2), in order;
    /// `None` for any other record. A key whose bytes are not UTF-8 (only
    /// in bytes not validated) reads as `""`.
    pub fn packed_keys(&self) -> Option<Vec<&'a str>> {
        if self.kind != Kind::PackedShape {
            return None;
        }
        let keys = layout::Shape::at(self.buf, self.offset)?.packed(self.buf)?;
        Some(
            layout::StrArrayBytes::new(self.buf, keys)
                .map(|k| {
                    k.and_then(|b| simdutf8::basic::from_utf8(b).ok())
                        .unwrap_or("")
                })
                .collect(),
        )
    }

    /// The decoded slots, in order (none for records without slots). A
    /// shape's slots are its keys: references to string records, or the
    /// empty-string constant. A stride array, which has no slots, gives a
    /// reference to each of its elements; a map of numbers one reference,
    /// to the number array of its values.
    pub fn slots(&self) -> Slots<'a> {
        let stride = match self.kind {
            Kind::StrideArray => layout::StrideArray::at(self.buf, self.offset),
            _ => None,
        };
        Slots {
            buf: self.buf,
            run: self.parts.slots.unwrap_or(NO_SLOTS),
            base: self.offset,
            next: 0,
            stride,
            values: self.parts.values,
        }
    }

    /// The value of a scalar record (string, number, timestamp, byte
    /// string, extension value, vector), of a number array or of a
    /// string array (arrays whose elements are in the record), or of a map
    /// of numbers (whose values are a number array's elements); `None` for
    /// arrays, maps, shapes and the root, whose values are their slots.
    pub fn value(&self) -> Option<Value<'a>> {
        match self.kind {
            Kind::Array
            | Kind::Map
            | Kind::Shape
            | Kind::PackedShape
            | Kind::Root
            | Kind::StrideArray => None,
            // A map whose values are in a number array, not in slots.
            // Read as lazily opened: `record_at` may be given an offset
            // inside a record, whose references need not reach a shape of
            // UTF-8 keys.
            Kind::NumMap => Some(crate::read::record_value(
                self.buf,
                self.offset,
                crate::read::LAZY,
            )),
            // Checked here: `record_at` may be given an offset inside a
            // record, whose bytes need not be UTF-8.
            Kind::Str => layout::str_record(self.buf, self.offset)
                .and_then(|b| simdutf8::basic::from_utf8(b).ok())
                .map(Value::Str),
            // No other value depends on validation for its safety.
            Kind::Int
            | Kind::UInt
            | Kind::BigInt
            | Kind::Float
            | Kind::Timestamp
            | Kind::Bytes
            | Kind::Ext
            | Kind::Vector => Some(crate::read::record_value(self.buf, self.offset, 0)),
            // An array, whose elements are in the record itself.
            Kind::NumArray => Some(crate::read::record_value(self.buf, self.offset, 0)),
            // Its strings checked as read (the offset may be inside a record).
            Kind::StrArray => Some(crate::read::record_value(
                self.buf,
                self.offset,
                crate::read::LAZY,
            )),
        }
    }
}

/// The slots of a [`Record`], decoded (see [`Record::slots`]).
#[derive(Clone, Debug)]
pub struct Slots<'a> {
    buf: &'a [u8],
    run: SlotRun,
    /// The record's offset, which relative references count back from.
    base: usize,
    /// Index of the next slot.
    next: usize,
    /// A stride array's header: its elements are given as references.
    stride: Option<layout::StrideArray>,
    /// A map of numbers' values record, given as one reference.
    values: Option<usize>,
}

/// The slots of a record without slots.
const NO_SLOTS: SlotRun = SlotRun {
    first: 0,
    count: 0,
    width: 0,
};

impl Iterator for Slots<'_> {
    type Item = Slot;

    fn next(&mut self) -> Option<Slot> {
        if let Some(v) = self.values.take() {
            return Some(Slot::Ref(v));
        }
        if let Some(s) = &self.stride {
            let i = self.next;
            self.next += 1;
            return (i < s.count).then(|| Slot::Ref(s.element(i)));
        }
        if self.next >= self.run.count {
            return None;
        }
        let s = slot(self.buf, self.run, self.next, self.base);
        self.next += 1;
        if s.is_none() {
            // Checked when the record was read: cannot happen.
            self.next = self.run.count;
        }
        s
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.values.is_some() {
            return (1, Some(1));
        }
        if let Some(s) = &self.stride {
            let n = s.count.saturating_sub(self.next);
            return (n, Some(n));
        }
        (0, Some(self.run.count - self.next))
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
            Ok(rec) => rec.end(),
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
        pos: layout::HEADER_LEN,
    })
}

/// The root record of `doc` (the last one), read from the end in O(1)
/// once the document is validated (a lazily opened one is validated first).
pub fn root<'a>(doc: &Document<'a>) -> Result<Record<'a>> {
    let doc = doc.validated()?;
    let buf = doc.as_bytes();
    let (_, pos) = layout::locate_root(buf)?;
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
    if offset < layout::HEADER_LEN {
        return Err(Error::at(ErrorKind::BadReference, offset)
            .with_message("not a record offset (inside the header)"));
    }
    read_record(buf, offset)
}

// ---- records from the layout ------------------------------------------------
//
// Every position below comes from `crate::layout`: `record_parts` for a
// record's end, slots, shape and element type, `read_slot` for a slot.

/// Slot `i` of `run`, of the record at `base`, decoded.
fn slot(buf: &[u8], run: SlotRun, i: usize, base: usize) -> Option<Slot> {
    Some(match layout::read_slot(buf, run.pos(i), run.width, base)? {
        layout::Slot::Int(i) => Slot::Int(i),
        layout::Slot::Special(s) => Slot::Special(s),
        layout::Slot::Ref(p) => Slot::Ref(p),
    })
}

/// Reads the record at `pos` (and checks that all its slots decode).
fn read_record(buf: &[u8], pos: usize) -> Result<Record<'_>> {
    let fault = || layout::record_fault(buf, pos);
    let parts = layout::record_parts(buf, pos).ok_or_else(fault)?;
    // `record_parts` gives no unknown kind: cannot fail.
    let kind = Kind::of(parts.kind).ok_or_else(fault)?;
    if let Some(run) = parts.slots {
        if let Some(i) = (0..run.count).find(|&i| slot(buf, run, i, pos).is_none()) {
            return Err(Error::at(ErrorKind::BadReference, run.pos(i)));
        }
    }
    Ok(Record {
        buf,
        offset: pos,
        kind,
        parts,
    })
}
