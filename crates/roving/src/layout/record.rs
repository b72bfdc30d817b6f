//! Record headers: where the payload of a string, byte string, extension,
//! vector or map record is, and the element types of vectors.

use super::num_map::{num_map_record, num_map_refs};
use super::numarray::{num_array_record, NumElem};
use super::root::{allows_v2, root_slot};
use super::shape::Shape;
use super::slot::{shape_target, slot_pos};
use super::str_array::StrArray;
use super::stride_array::{stride_array_fault, StrideArray};
use super::tags::*;
use super::varint::read_varint;
use crate::error::{Error, ErrorKind};

/// Element type of a typed numeric vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ElemType {
    /// `i8`
    I8 = 0,
    /// `u8`
    U8 = 1,
    /// `i16`
    I16 = 2,
    /// `u16`
    U16 = 3,
    /// `i32`
    I32 = 4,
    /// `u32`
    U32 = 5,
    /// `i64`
    I64 = 6,
    /// `u64`
    U64 = 7,
    /// `f32`
    F32 = 8,
    /// `f64`
    F64 = 9,
}

impl ElemType {
    /// The element type for a code byte, if defined.
    pub fn from_code(code: u8) -> Option<ElemType> {
        use ElemType::*;
        Some(match code {
            0 => I8,
            1 => U8,
            2 => I16,
            3 => U16,
            4 => I32,
            5 => U32,
            6 => I64,
            7 => U64,
            8 => F32,
            9 => F64,
            _ => return None,
        })
    }

    /// Size of one element in bytes (also its alignment).
    pub fn size(self) -> usize {
        use ElemType::*;
        match self {
            I8 | U8 => 1,
            I16 | U16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }

    /// Short lowercase name (`"i8"`, `"f64"`, ...), as numpy-like dtype names.
    pub fn name(self) -> &'static str {
        use ElemType::*;
        match self {
            I8 => "i8",
            U8 => "u8",
            I16 => "i16",
            U16 => "u16",
            I32 => "i32",
            U32 => "u32",
            I64 => "i64",
            U64 => "u64",
            F32 => "f32",
            F64 => "f64",
        }
    }
}

/// Borrow of `len` bytes at `pos`.
#[inline(always)]
pub(crate) fn bytes_at(buf: &[u8], pos: usize, len: u64) -> Option<&[u8]> {
    let end = pos.checked_add(usize::try_from(len).ok()?)?;
    buf.get(pos..end)
}

/// Reads the string record at `pos`, if it is one: its bytes (not checked
/// for UTF-8).
#[inline(always)]
pub(crate) fn str_record(buf: &[u8], pos: usize) -> Option<&[u8]> {
    let tag = *buf.get(pos)?;
    if is_short_str(tag) {
        bytes_at(buf, pos + 1, short_str_len(tag) as u64)
    } else if tag == TAG_STR {
        let (len, p) = read_varint(buf, pos + 1)?;
        bytes_at(buf, p, len)
    } else {
        None
    }
}

/// The payload of the record at `pos` whose tag is followed by a varint
/// length and that many bytes (long strings, byte strings, big integers):
/// the bytes, not checked.
#[inline(always)]
pub(crate) fn length_prefixed(buf: &[u8], pos: usize) -> Option<&[u8]> {
    let (len, p) = read_varint(buf, pos + 1)?;
    bytes_at(buf, p, len)
}

/// The extension record at `pos`: its type id and payload.
#[inline]
pub(crate) fn ext_record(buf: &[u8], pos: usize) -> Option<(u64, &[u8])> {
    let (type_id, p) = read_varint(buf, pos + 1)?;
    let (len, p) = read_varint(buf, p)?;
    Some((type_id, bytes_at(buf, p, len)?))
}

/// True for the tags of the fixed-width signed integer records `01`-`04`.
#[inline(always)]
pub(crate) fn is_small_int(tag: u8) -> bool {
    (TAG_I8..=TAG_I64).contains(&tag)
}

/// The value of the integer record `01`-`04` (`tag`) at `pos`, read as
/// one 8-byte load and a sign extension when 8 bytes follow the tag (else
/// `None`: read it field by field).
#[inline(always)]
pub(crate) fn small_int_record(buf: &[u8], pos: usize, tag: u8) -> Option<i64> {
    let b = buf.get(pos.checked_add(1)?..)?.first_chunk::<8>()?;
    // Widths 1, 2, 4 and 8 bytes: the shift is 56, 48, 32 or 0.
    let sh = 64 - (8u32 << (tag.wrapping_sub(TAG_I8) & 3));
    Some(((u64::from_le_bytes(*b) << sh) as i64) >> sh)
}

/// The `N` bytes at `pos`, if in bounds.
#[inline(always)]
pub(crate) fn fixed<const N: usize>(buf: &[u8], pos: usize) -> Option<[u8; N]> {
    buf.get(pos..pos.checked_add(N)?)?.try_into().ok()
}

/// The payload of the timestamp record (`0A` or `0B`, `tag`) at `pos`:
/// seconds, nanoseconds and (for `0B`) the UTC offset in seconds, not
/// range-checked.
#[inline]
pub(crate) fn timestamp_record(buf: &[u8], pos: usize, tag: u8) -> Option<(i64, u32, Option<i32>)> {
    let p = pos + 1;
    let seconds = i64::from_le_bytes(fixed(buf, p)?);
    let nanos = u32::from_le_bytes(fixed(buf, p + TIMESTAMP_NANOS_AT)?);
    let offset = if tag == TAG_TIMESTAMP_OFFSET {
        Some(i32::from_le_bytes(fixed(buf, p + TIMESTAMP_OFFSET_AT)?))
    } else {
        None
    };
    Some((seconds, nanos, offset))
}

/// The tag of the container record (array or map) at `pos`, the varint
/// after it (an array's element count, a map's shape reference) and the
/// position of the first slot.
#[inline(always)]
pub(crate) fn container_header(buf: &[u8], pos: usize) -> Option<(u8, u64, usize)> {
    let tag = *buf.get(pos)?;
    let (v, slots) = read_varint(buf, pos + 1)?;
    Some((tag, v, slots))
}

/// Decodes the shape reference of the map record at `pos`: returns the
/// shape's position (strictly before `pos`) and the position of the first value slot.
#[inline(always)]
pub(crate) fn map_shape_ref(buf: &[u8], pos: usize) -> Option<(usize, usize)> {
    map_header(buf, pos).map(|(_, shape, values)| (shape, values))
}

/// [`map_shape_ref`] with the map's tag.
#[inline(always)]
pub(crate) fn map_header(buf: &[u8], pos: usize) -> Option<(u8, usize, usize)> {
    let (tag, r, values) = container_header(buf, pos)?;
    Some((tag, shape_target(r, pos)?, values))
}

/// Position of the data of a vector of `elem` whose count ends at
/// `after_count`: the next multiple of the element size (zero padding
/// between).
#[inline]
pub(crate) fn vector_data_start(after_count: usize, elem: ElemType) -> usize {
    after_count.next_multiple_of(elem.size())
}

/// The vector record at `pos`: its element type and the position and
/// length in bytes of its data (in bounds).
#[inline]
pub(crate) fn vector_record(buf: &[u8], pos: usize) -> Option<(ElemType, usize, usize)> {
    if *buf.get(pos)? != TAG_VECTOR {
        return None;
    }
    let elem = ElemType::from_code(*buf.get(pos + 1)?)?;
    let (count, p) = read_varint(buf, pos + 2)?;
    let start = vector_data_start(p, elem);
    let len = usize::try_from(count).ok()?.checked_mul(elem.size())?;
    buf.get(start..start.checked_add(len)?)?;
    Some((elem, start, len))
}

/// The header of a shaped vector record (`23`), as
/// [`shaped_vector_record`] decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ShapedVectorRecord {
    /// The element type.
    pub(crate) elem: ElemType,
    /// Position of the `ndim` varint: the shape's bytes run from here to
    /// [`dims_end`](Self::dims_end).
    pub(crate) shape_at: usize,
    /// Number of dimensions (2 to [`SHAPED_VECTOR_MAX_NDIM`]).
    pub(crate) ndim: usize,
    /// Position after the last dimension (where the padding starts).
    pub(crate) dims_end: usize,
    /// Position of the data (a multiple of the element size).
    pub(crate) start: usize,
    /// Length of the data in bytes: the product of the dimensions times
    /// the element size.
    pub(crate) len: usize,
}

/// The shaped vector record at `pos` (`23`): its element type, shape and
/// data (in bounds, the product of the dimensions without overflow, `ndim`
/// in 2..=[`SHAPED_VECTOR_MAX_NDIM`]). Neither the padding nor the
/// document's version is checked here.
#[inline]
pub(crate) fn shaped_vector_record(buf: &[u8], pos: usize) -> Option<ShapedVectorRecord> {
    if *buf.get(pos)? != TAG_SHAPED_VECTOR {
        return None;
    }
    let elem = ElemType::from_code(*buf.get(pos + 1)?)?;
    let shape_at = pos + 2;
    let (ndim, mut p) = read_varint(buf, shape_at)?;
    let ndim = usize::try_from(ndim).ok()?;
    if !(2..=SHAPED_VECTOR_MAX_NDIM).contains(&ndim) {
        return None;
    }
    let dims_at = p;
    let mut count = 1usize;
    for _ in 0..ndim {
        let (d, q) = read_varint(buf, p)?;
        count = count.checked_mul(usize::try_from(d).ok()?)?;
        p = q;
    }
    if count == 0 && !shaped_vector_rows_ok(dim_values(buf, dims_at, ndim)) {
        return None;
    }
    let start = vector_data_start(p, elem);
    let len = count.checked_mul(elem.size())?;
    buf.get(start..start.checked_add(len)?)?;
    Some(ShapedVectorRecord {
        elem,
        shape_at,
        ndim,
        dims_end: p,
        start,
        len,
    })
}

/// The dimensions of a shape: `ndim` varints from `p` (decoded by
/// [`shaped_vector_record`] before, so they read).
pub(crate) fn shape_dims(buf: &[u8], p: usize, ndim: usize) -> Vec<usize> {
    dim_values(buf, p, ndim).map(|d| d as usize).collect()
}

/// The error of a shaped vector at `pos` without elements whose `ndim`
/// dimensions, from `dims_at`, have too many rows (section 6.17), if so.
/// Called for a record whose element count is 0.
pub(crate) fn empty_shape_rows_fault(
    buf: &[u8],
    pos: usize,
    dims_at: usize,
    ndim: usize,
) -> Option<Error> {
    (!shaped_vector_rows_ok(dim_values(buf, dims_at, ndim))).then(|| {
        Error::at(ErrorKind::BadLength, pos).with_message(format!(
            "a shaped vector without elements has at most {SHAPED_VECTOR_MAX_EMPTY_ROWS} rows"
        ))
    })
}

/// Up to `ndim` dimension varints from `p`, as long as they read.
fn dim_values(buf: &[u8], mut p: usize, ndim: usize) -> impl Iterator<Item = u64> + '_ {
    (0..ndim).map_while(move |_| {
        let (d, q) = read_varint(buf, p)?;
        p = q;
        Some(d)
    })
}

/// Why the container header at `pos` (a tag and a varint) does not
/// decode: the error kind and its offset.
#[cold]
pub(crate) fn header_fault(buf: &[u8], pos: usize) -> (ErrorKind, usize) {
    match buf.get(pos) {
        None => (ErrorKind::Truncated, pos),
        Some(_) => match read_varint(buf, pos + 1) {
            None => (ErrorKind::BadVarint, pos + 1),
            Some(_) => (ErrorKind::BadReference, pos),
        },
    }
}

/// The slots of a container record (array, map, shape or root): where
/// the first one is, how many there are and their width in bytes. Slot
/// `i` is at [`pos`](Self::pos)`(i)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotRun {
    /// Position of the first slot.
    pub(crate) first: usize,
    /// Number of slots: elements of an array, values of a map, keys of a
    /// shape, 1 for the root.
    pub(crate) count: usize,
    /// Slot width in bytes (1, 2, 4 or 8).
    pub(crate) width: usize,
}

impl SlotRun {
    /// Position of slot `i`.
    #[inline(always)]
    pub(crate) fn pos(&self, i: usize) -> usize {
        slot_pos(self.first, i, self.width)
    }
}

/// The parts of a record, decoded from its header by [`record_parts`]:
/// its kind, its end, and where its slots, its shape (for a map) and its
/// element type (for a vector) are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecordParts {
    /// The tag byte.
    pub(crate) tag: u8,
    /// The kind of record ([`RecordKind::of`] the tag; never
    /// [`RecordKind::Unknown`]).
    pub(crate) kind: RecordKind,
    /// The position after the record's last byte (at most the buffer's
    /// length).
    pub(crate) end: usize,
    /// The slots of an array, map, shape or root record, else `None`.
    pub(crate) slots: Option<SlotRun>,
    /// The position of a map's shape record, else `None`.
    pub(crate) shape: Option<usize>,
    /// The position of the number array record of a map of numbers'
    /// values, else `None`.
    pub(crate) values: Option<usize>,
    /// The element type of a vector, else `None`.
    pub(crate) elem: Option<ElemType>,
}

impl RecordParts {
    /// How the record is encoded: `short str`, `str`, `i8` to `i64`,
    /// `u64`, `bigint`, `f32`, `f64`, `decimal`, `timestamp`,
    /// `timestamp+offset`, `bytes`, `ext`, `vector<T>` (`T` an
    /// [`ElemType::name`]), and `array/W`, `map/W`, `shape/W`, `root/W` for
    /// a slot width of `W` bytes. These are the labels `roving stats` and
    /// `roving dump` print.
    pub(crate) fn encoding(&self) -> &'static str {
        use RecordKind as K;
        const ARRAY: [&str; 4] = ["array/1", "array/2", "array/4", "array/8"];
        const MAP: [&str; 4] = ["map/1", "map/2", "map/4", "map/8"];
        const SHAPE: [&str; 4] = ["shape/1", "shape/2", "shape/4", "shape/8"];
        const ROOT: [&str; 4] = ["root/1", "root/2", "root/4", "root/8"];
        let w = tag_width_code(self.tag) as usize;
        match self.kind {
            K::I8 => "i8",
            K::I16 => "i16",
            K::I32 => "i32",
            K::I64 => "i64",
            K::U64 => "u64",
            K::BigIntPos | K::BigIntNeg => "bigint",
            K::F32 => "f32",
            K::F64 => "f64",
            K::FDec => "decimal",
            K::Timestamp => "timestamp",
            K::TimestampOffset => "timestamp+offset",
            K::ShortStr => "short str",
            K::Str => "str",
            K::Bytes => "bytes",
            K::Ext => "ext",
            K::Vector => match self.elem {
                Some(e) => e.vector_label(),
                None => "vector",
            },
            K::ShapedVector => match self.elem {
                Some(e) => e.shaped_vector_label(),
                None => "shaped vector",
            },
            K::Array => ARRAY[w],
            K::Map => MAP[w],
            K::Shape => SHAPE[w],
            K::Root => ROOT[w],
            K::NumArray => NumElem::label(self.tag),
            K::StrArray => "str array",
            K::StrideArray => "stride array",
            K::PackedShape => "packed shape",
            K::NumMap => "map<numbers>",
            K::Unknown => "unknown",
        }
    }
}

impl ElemType {
    /// `shaped vector<T>` for `T` the element type's [`name`](Self::name).
    fn shaped_vector_label(self) -> &'static str {
        use ElemType::*;
        match self {
            I8 => "shaped vector<i8>",
            U8 => "shaped vector<u8>",
            I16 => "shaped vector<i16>",
            U16 => "shaped vector<u16>",
            I32 => "shaped vector<i32>",
            U32 => "shaped vector<u32>",
            I64 => "shaped vector<i64>",
            U64 => "shaped vector<u64>",
            F32 => "shaped vector<f32>",
            F64 => "shaped vector<f64>",
        }
    }

    /// `vector<T>` for `T` the element type's [`name`](Self::name).
    fn vector_label(self) -> &'static str {
        use ElemType::*;
        match self {
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
}

/// The parts of the record at `pos` ([`RecordParts`]), from its header
/// alone: its content (UTF-8, slots, canonical forms) is not checked, and
/// a map's shape is read for its key count. `None` if the header does not
/// decode, the tag is unknown, or the record would end beyond `buf`
/// ([`record_fault`] says which).
pub(crate) fn record_parts(buf: &[u8], pos: usize) -> Option<RecordParts> {
    use RecordKind as K;
    let tag = *buf.get(pos)?;
    let kind = RecordKind::of(tag);
    let p = pos + 1;
    let mut parts = RecordParts {
        tag,
        kind,
        end: 0,
        slots: None,
        shape: None,
        values: None,
        elem: None,
    };
    let slots = |first: usize, count: usize| {
        let width = tag_width(tag);
        let end = first.checked_add(count.checked_mul(width)?)?;
        Some((
            SlotRun {
                first,
                count,
                width,
            },
            end,
        ))
    };
    parts.end = match kind {
        K::I8
        | K::I16
        | K::I32
        | K::I64
        | K::U64
        | K::F32
        | K::F64
        | K::FDec
        | K::Timestamp
        | K::TimestampOffset => p + kind.fixed_payload()?,
        K::ShortStr => p + short_str_len(tag),
        K::Str | K::Bytes | K::BigIntPos | K::BigIntNeg => {
            let b = length_prefixed(buf, pos)?;
            b.as_ptr() as usize - buf.as_ptr() as usize + b.len()
        }
        K::Ext => {
            let (_, b) = ext_record(buf, pos)?;
            b.as_ptr() as usize - buf.as_ptr() as usize + b.len()
        }
        K::Vector => {
            let (elem, start, len) = vector_record(buf, pos)?;
            parts.elem = Some(elem);
            start + len
        }
        K::ShapedVector => {
            // A version 2 record: unknown in a version 1 document.
            if !allows_v2(buf) {
                return None;
            }
            let r = shaped_vector_record(buf, pos)?;
            parts.elem = Some(r.elem);
            r.start + r.len
        }
        K::Array => {
            let (_, count, first) = container_header(buf, pos)?;
            let (run, end) = slots(first, usize::try_from(count).ok()?)?;
            parts.slots = Some(run);
            end
        }
        K::Map => {
            let (shape, first) = map_shape_ref(buf, pos)?;
            let (run, end) = slots(first, Shape::at(buf, shape)?.count)?;
            (parts.slots, parts.shape) = (Some(run), Some(shape));
            end
        }
        K::Shape => {
            let s = Shape::at(buf, pos)?;
            s.count.checked_mul(s.slot_width())?;
            parts.slots = Some(SlotRun {
                first: s.key_slot(0),
                count: s.count,
                width: s.slot_width(),
            });
            s.end()
        }
        K::Root => {
            let (run, end) = slots(root_slot(pos), 1)?;
            parts.slots = Some(run);
            // The slot, then the tag again.
            end + 1
        }
        K::NumArray => num_array_record(buf, pos)?.end(),
        K::StrArray => StrArray::at(buf, pos)?.end(),
        K::StrideArray => StrideArray::at(buf, pos)?.end,
        // (`Shape::at` refuses it in a version 1 document.)
        K::PackedShape => Shape::at(buf, pos)?.end(),
        K::NumMap => {
            // A version 2 record: unknown in a version 1 document.
            if !allows_v2(buf) {
                return None;
            }
            let m = num_map_record(buf, pos)?;
            (parts.shape, parts.values) = (Some(m.shape.pos), Some(m.values_at));
            m.end
        }
        K::Unknown => return None,
    };
    (parts.end <= buf.len()).then_some(parts)
}

/// Why the record at `pos` does not decode ([`record_parts`] gave
/// `None`): an unknown tag, an unknown vector element type, a map whose
/// shape reference is not a shape, or else a header or payload cut short.
#[cold]
pub(crate) fn record_fault(buf: &[u8], pos: usize) -> Error {
    use RecordKind as K;
    let short = || Error::at(ErrorKind::Truncated, pos).with_message("a record does not decode");
    let Some(&tag) = buf.get(pos) else {
        return short();
    };
    match RecordKind::of(tag) {
        K::Unknown => Error::at(ErrorKind::UnknownTag(tag), pos),
        K::Vector => match buf.get(pos + 1) {
            Some(&code) if ElemType::from_code(code).is_none() => {
                Error::at(ErrorKind::UnknownTag(code), pos + 1)
            }
            _ => short(),
        },
        K::ShapedVector => shaped_vector_fault(buf, pos),
        K::Map => match map_shape_ref(buf, pos) {
            Some((shape, _)) if Shape::at(buf, shape).is_none() => {
                Error::at(ErrorKind::WrongTarget, pos + 1)
                    .with_message("a map's shape is not a shape")
            }
            _ => short(),
        },
        K::StrArray => str_array_fault(buf, pos).unwrap_or_else(short),
        K::PackedShape if !allows_v2(buf) => Error::at(ErrorKind::UnknownTag(tag), pos)
            .with_message("a version 2 record in a version 1 document"),
        K::PackedShape => str_array_fault(buf, pos).unwrap_or_else(short),
        K::StrideArray => stride_array_fault(buf, pos),
        K::NumMap => num_map_fault(buf, pos),
        K::I8
        | K::I16
        | K::I32
        | K::I64
        | K::U64
        | K::BigIntPos
        | K::BigIntNeg
        | K::F32
        | K::F64
        | K::FDec
        | K::Timestamp
        | K::TimestampOffset
        | K::ShortStr
        | K::Str
        | K::Bytes
        | K::Ext
        | K::Array
        | K::Shape
        | K::Root
        | K::NumArray => short(),
    }
}

/// Why the map record of numbers at `pos` does not decode: a version 1
/// document, a shape reference that is not a shape, a values reference
/// that is not a number array, counts that differ, or a header cut short.
#[cold]
fn num_map_fault(buf: &[u8], pos: usize) -> Error {
    if !allows_v2(buf) {
        return Error::at(ErrorKind::UnknownTag(TAG_NUM_MAP), pos)
            .with_message("a version 2 record in a version 1 document");
    }
    let Some((shape, values, _)) = num_map_refs(buf, pos) else {
        return Error::at(ErrorKind::Truncated, pos).with_message("a record does not decode");
    };
    let Some(s) = Shape::at(buf, shape) else {
        return Error::at(ErrorKind::WrongTarget, pos + 1)
            .with_message("a map's shape is not a shape");
    };
    match buf.get(values) {
        Some(&t) if is_num_array(t) => match num_array_record(buf, values) {
            Some(v) if v.count != s.count => {
                Error::at(ErrorKind::BadLength, pos).with_message(format!(
                    "a map of numbers has {} keys and {} values",
                    s.count, v.count
                ))
            }
            _ => {
                Error::at(ErrorKind::Truncated, values).with_message("a map's values do not decode")
            }
        },
        _ => Error::at(ErrorKind::WrongTarget, pos + 1)
            .with_message("a map's values are not a number array"),
    }
}

/// Why the shaped vector record at `pos` does not decode: a version 1
/// document, an unknown element type, a bad `ndim`, a product of the
/// dimensions that overflows, or a header or data cut short.
#[cold]
fn shaped_vector_fault(buf: &[u8], pos: usize) -> Error {
    if !allows_v2(buf) {
        return Error::at(ErrorKind::UnknownTag(TAG_SHAPED_VECTOR), pos)
            .with_message("a version 2 record in a version 1 document");
    }
    let short = || Error::at(ErrorKind::Truncated, pos).with_message("a record does not decode");
    match buf.get(pos + 1) {
        Some(&code) if ElemType::from_code(code).is_none() => {
            return Error::at(ErrorKind::UnknownTag(code), pos + 1)
        }
        None => return short(),
        Some(_) => {}
    }
    if let Some((ndim, p)) = read_varint(buf, pos + 2) {
        let ndim = ndim.min(SHAPED_VECTOR_MAX_NDIM as u64) as usize;
        let dims: Vec<u64> = dim_values(buf, p, ndim).collect();
        let count = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d));
        if dims.len() == ndim && count == Some(0) {
            if let Some(e) = empty_shape_rows_fault(buf, pos, p, ndim) {
                return e;
            }
        }
    }
    if let Some(r) = shaped_vector_record(buf, pos) {
        if buf[r.dims_end..r.start].iter().any(|&b| b != 0) {
            return Error::at(ErrorKind::NonCanonical, r.dims_end)
                .with_message("a shaped vector's padding is not zero");
        }
    }
    match read_varint(buf, pos + 2) {
        Some((n, _)) if n < 2 => Error::at(ErrorKind::NonCanonical, pos + 2)
            .with_message("a shaped vector has 2 or more dimensions"),
        Some((n, _)) if n > SHAPED_VECTOR_MAX_NDIM as u64 => {
            Error::at(ErrorKind::BadLength, pos + 2).with_message(format!(
                "a shaped vector has at most {SHAPED_VECTOR_MAX_NDIM} dimensions"
            ))
        }
        _ => short(),
    }
}

/// Why the header of the string array record (or packed shape) at `pos`
/// does not decode, if a reserved bit of its widths byte is set (a packed
/// shape's key order bits are not reserved, unless both are set; else it
/// is cut short).
#[cold]
fn str_array_fault(buf: &[u8], pos: usize) -> Option<Error> {
    let (_, p) = read_varint(buf, pos + 1)?;
    let (_, p) = read_varint(buf, p)?;
    let widths = *buf.get(p)?;
    let reserved = match super::str_array::key_order_bits(buf[pos], widths) {
        Some(order) => (widths & !order) & super::str_array::STR_ARRAY_RESERVED != 0,
        None => true,
    };
    reserved.then(|| Error::at(ErrorKind::NonCanonical, p))
}

/// The end of the record at `pos` (the position after its last byte),
/// from its header alone: its content (UTF-8, slots, canonical forms) is
/// not checked, and a map's shape is read for its key count. `None` if
/// the header does not decode, the tag is unknown, or the record would
/// end beyond `buf`.
///
/// ```
/// let bytes = roving::json::from_json(br#"["ab", 1.5]"#)?;
/// let first = roving::layout::HEADER_LEN;
/// // The first record is the string "ab": a tag and two bytes.
/// assert_eq!(roving::layout::record_end(&bytes, first), Some(first + 3));
/// # Ok::<(), roving::Error>(())
/// ```
pub fn record_end(buf: &[u8], pos: usize) -> Option<usize> {
    record_parts(buf, pos).map(|r| r.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `record_end` finds the records of an encoded document tiling it.
    #[test]
    fn records_tile_a_document() {
        let json = br#"[{"name":"Ada","n":-300,"big":123456789012345678901234567890,
            "f":2.5,"g":1e300,"x":0.1,"long":"a string of more than sixty-three bytes, so a long-form string record"},
            {"name":"Bob","n":70000,"big":-123456789012345678901234567890,"f":1.5,"g":-1e300,
            "x":0.2,"long":"b"}, 1, 2, [true, null, 1099511627776]]"#;
        let doc = crate::json::from_json(json).unwrap();
        let mut enc = crate::Encoder::new();
        enc.begin_array().unwrap();
        enc.bytes(b"bytes").unwrap();
        enc.ext(7, b"payload").unwrap();
        enc.vector(&[1.5f64, 2.5]).unwrap();
        enc.timestamp(crate::Timestamp {
            seconds: 5,
            nanos: 6,
            offset: Some(60),
        })
        .unwrap();
        enc.timestamp(crate::Timestamp {
            seconds: 5,
            nanos: 6,
            offset: None,
        })
        .unwrap();
        enc.end_array().unwrap();
        let other = enc.finish().unwrap();
        for d in [&doc, &other] {
            let mut pos = HEADER_LEN;
            while pos < d.len() {
                pos = record_end(d, pos).unwrap_or_else(|| panic!("record at {pos}"));
            }
            assert_eq!(pos, d.len());
        }
    }

    /// The smallest record of each tag (empty payloads, zero fields; a map
    /// after an empty shape), at its position in the returned buffer.
    fn smallest_record(tag: u8) -> (Vec<u8>, usize) {
        use RecordKind as K;
        let w = tag_width(tag);
        match RecordKind::of(tag) {
            K::ShortStr => ([vec![tag], vec![b'x'; short_str_len(tag)]].concat(), 0),
            K::Str | K::Bytes | K::BigIntPos | K::BigIntNeg => (vec![tag, 0], 0),
            K::Ext => (vec![tag, 7, 0], 0),
            // Element type f64, count 0, padding to the data at 8.
            K::Vector => (vec![tag, 9, 0, 0, 0, 0, 0, 0], 0),
            // In a version 2 document (after its header): element type
            // f64, 2 dimensions of 0, the data at 8.
            K::ShapedVector => (vec![b'R', b'V', VERSION_2, tag, 9, 2, 0, 0], 3),
            K::Array | K::Shape => (vec![tag, 0], 0),
            // Count 0 (and the exponent of a decimal one).
            K::NumArray if tag == TAG_NUM_ARRAY_DEC => (vec![tag, 0, 0], 0),
            K::NumArray => (vec![tag, 0], 0),
            // An empty shape at 0, then the map: shape reference 2 back.
            K::Map => (vec![TAG_SHAPE, 0, tag, 2 << 1], 2),
            // One slot (the constant null), then the tag again.
            K::Root => ([vec![tag, 0b11], vec![0; w - 1], vec![tag]].concat(), 0),
            // No strings, no data, widths 1 and 1.
            K::StrArray => (vec![tag, 0, 0, 0], 0),
            // In a version 2 document: no elements, stride 1.
            K::StrideArray => (vec![b'R', b'V', VERSION_2, tag, 0, 1], 3),
            // In a version 2 document: no keys, no data, widths 1 and 1.
            K::PackedShape => (vec![b'R', b'V', VERSION_2, tag, 0, 0, 0], 3),
            // In a version 2 document: an empty shape at 3, no numbers
            // (u8) at 5, the map at 7: both references back.
            K::NumMap => (
                vec![
                    b'R',
                    b'V',
                    VERSION_2,
                    TAG_SHAPE,
                    0,
                    TAG_NUM_ARRAY + 1,
                    0,
                    tag,
                    4 << 1,
                    2 << 1,
                ],
                7,
            ),
            k => (vec![tag; 1 + k.fixed_payload().unwrap_or(0)], 0),
        }
    }

    /// Every tag's record has the parts and the encoding label its tag
    /// says; unknown tags have none.
    #[test]
    fn parts_and_labels_of_every_tag() {
        use RecordKind as K;
        for tag in 0..=255u8 {
            let kind = RecordKind::of(tag);
            if kind == K::Unknown {
                assert_eq!(record_parts(&[tag; 32], 0), None, "{tag:#x}");
                continue;
            }
            let (buf, pos) = smallest_record(tag);
            let p = record_parts(&buf, pos).unwrap_or_else(|| panic!("{tag:#x}"));
            assert_eq!((p.tag, p.kind, p.end), (tag, kind, buf.len()), "{tag:#x}");
            assert_eq!(record_end(&buf, pos), Some(buf.len()));
            let w = tag_width(tag);
            let label = match kind {
                K::I8 | K::I16 | K::I32 | K::I64 => {
                    format!("i{}", 8 * kind.fixed_payload().unwrap())
                }
                K::U64 => "u64".into(),
                K::F32 => "f32".into(),
                K::F64 => "f64".into(),
                K::FDec => "decimal".into(),
                K::BigIntPos | K::BigIntNeg => "bigint".into(),
                K::Timestamp => "timestamp".into(),
                K::TimestampOffset => "timestamp+offset".into(),
                K::ShortStr => "short str".into(),
                K::Str => "str".into(),
                K::Bytes => "bytes".into(),
                K::Ext => "ext".into(),
                K::Vector => "vector<f64>".into(),
                K::ShapedVector => "shaped vector<f64>".into(),
                K::Array => format!("array/{w}"),
                K::Map => format!("map/{w}"),
                K::Shape => format!("shape/{w}"),
                K::PackedShape => "packed shape".into(),
                K::NumMap => "map<numbers>".into(),
                K::Root => format!("root/{w}"),
                K::NumArray => match ElemType::from_code(tag - TAG_NUM_ARRAY) {
                    Some(e) => format!("numbers<{}>", e.name()),
                    None => "numbers<decimal>".into(),
                },
                K::StrArray => "str array".into(),
                K::StrideArray => "stride array".into(),
                K::Unknown => unreachable!(),
            };
            assert_eq!(p.encoding(), label, "{tag:#x}");
            let slots = match kind {
                K::Array | K::Shape => Some(SlotRun {
                    first: 2,
                    count: 0,
                    width: w,
                }),
                K::Map => Some(SlotRun {
                    first: 4,
                    count: 0,
                    width: w,
                }),
                K::Root => Some(SlotRun {
                    first: 1,
                    count: 1,
                    width: w,
                }),
                _ => None,
            };
            assert_eq!(p.slots, slots, "{tag:#x}");
            let (shape, values) = match kind {
                K::Map => (Some(0), None),
                K::NumMap => (Some(3), Some(5)),
                _ => (None, None),
            };
            assert_eq!((p.shape, p.values), (shape, values), "{tag:#x}");
            let vector = matches!(kind, K::Vector | K::ShapedVector);
            assert_eq!(p.elem, vector.then_some(ElemType::F64));
            // Every cut of the record is `None`, and a fault.
            for cut in pos..buf.len() {
                assert_eq!(
                    record_parts(&buf[..cut], pos),
                    None,
                    "{tag:#x} cut at {cut}"
                );
                let e = record_fault(&buf[..cut], pos);
                assert_eq!(e.kind(), &ErrorKind::Truncated, "{tag:#x} cut at {cut}");
            }
        }
    }

    /// The slot runs of records of an encoded document: counts, widths,
    /// slot positions and a map's shape.
    #[test]
    fn slot_runs_of_a_document() {
        let doc = crate::json::from_json(br#"[1, "ab", {"k": 2, "l": 3}]"#).unwrap();
        let mut pos = HEADER_LEN;
        let mut found = Vec::new();
        while pos < doc.len() {
            let p = record_parts(&doc, pos).unwrap();
            if let Some(run) = p.slots {
                assert_eq!(run.width, tag_width(p.tag));
                // The slots end the record, but for a shape's hash index
                // and the root's repeated tag.
                let after = match p.kind {
                    RecordKind::Root => p.end - 1,
                    _ => p.end,
                };
                assert!(run.pos(run.count) <= after);
                assert!(p.kind == RecordKind::Shape || run.pos(run.count) == after);
                found.push((p.kind, run.count, p.shape.is_some()));
            }
            if p.kind == RecordKind::Root {
                assert_eq!(p.slots.unwrap().first, root_slot(pos));
            }
            pos = p.end;
        }
        assert_eq!(pos, doc.len());
        assert_eq!(
            found,
            [
                (RecordKind::Shape, 2, false),
                (RecordKind::Map, 2, true),
                (RecordKind::Array, 3, false),
                (RecordKind::Root, 1, false),
            ]
        );
    }

    /// Why a record does not decode: the error kind and where.
    #[test]
    fn faults() {
        let fault = |buf: &[u8], pos| {
            assert_eq!(record_parts(buf, pos), None);
            let e = record_fault(buf, pos);
            (e.kind().clone(), e.offset())
        };
        assert_eq!(fault(&[0, 0x00], 1), (ErrorKind::UnknownTag(0), Some(1)));
        assert_eq!(
            fault(&[TAG_VECTOR, 10, 0], 0),
            (ErrorKind::UnknownTag(10), Some(1))
        );
        // A map whose shape reference (2 back) is a string, not a shape.
        assert_eq!(
            fault(&[0x80, 0, TAG_MAP, 2 << 1], 2),
            (ErrorKind::WrongTarget, Some(3))
        );
        // A shape reference that does not point back.
        assert_eq!(
            fault(&[TAG_MAP, 2 << 1], 0),
            (ErrorKind::Truncated, Some(0))
        );
        assert_eq!(
            fault(&[TAG_STR, 5, b'a'], 0),
            (ErrorKind::Truncated, Some(0))
        );
        assert_eq!(fault(&[], 0), (ErrorKind::Truncated, Some(0)));
    }
}
