//! The header and the tag byte of every record: what each tag means
//! ([`RecordKind`]), and the slot widths of container tags.

/// The first two bytes of every document: ASCII `R`, `V`.
pub const MAGIC: [u8; 2] = *b"RV";
/// Newest format version this crate reads. It writes [`VERSION_1`] unless a
/// document holds a record that only version 2 defines (the writer marks
/// it with `Encoder::require_version`).
pub const VERSION: u8 = VERSION_2;
/// Format version 1: the records of `docs/FORMAT.md` sections 6.1-6.13.
pub const VERSION_1: u8 = 1;
/// Format version 2: version 1 plus the records that section 6.14 on adds.
/// A version 1 document that holds one of them is invalid.
pub const VERSION_2: u8 = 2;
/// Length of the header (`MAGIC` + version byte).
pub const HEADER_LEN: usize = 3;

// ---- record tags -------------------------------------------------------

/// Signed 8-bit integer record.
pub const TAG_I8: u8 = 0x01;
/// Signed 16-bit integer record (little endian).
pub const TAG_I16: u8 = 0x02;
/// Signed 32-bit integer record (little endian).
pub const TAG_I32: u8 = 0x03;
/// Signed 64-bit integer record (little endian).
pub const TAG_I64: u8 = 0x04;
/// Unsigned 64-bit integer record, for values above `i64::MAX`.
pub const TAG_U64: u8 = 0x05;
/// Positive arbitrary-precision integer: varint length, magnitude LE.
pub const TAG_BIGINT_POS: u8 = 0x06;
/// Negative arbitrary-precision integer: varint length, magnitude LE.
pub const TAG_BIGINT_NEG: u8 = 0x07;
/// IEEE 754 binary32 record, used only when it is exact.
pub const TAG_F32: u8 = 0x08;
/// IEEE 754 binary64 record.
pub const TAG_F64: u8 = 0x09;
/// Decimal float: i8 exponent `e` (-22..=22), i32 mantissa `m`; the value is
/// the binary64 nearest to `m * 10^e` (computed exactly as one IEEE
/// multiplication or division, since `m` and `10^|e|` are exact doubles).
pub const TAG_F_DEC: u8 = 0x20;

/// String array (format version 2): varint count, varint data length, a
/// byte of widths, block starts, ends, then the strings' bytes packed
/// (`docs/FORMAT.md` section 6.15; see `layout::StrArray`).
pub const TAG_STR_ARRAY: u8 = 0x22;

/// Packed shape (format version 2): a shape whose keys are packed as in a
/// string array record, followed by a dense hash index when it has more
/// than [`crate::layout::SHAPE_LINEAR_MAX`] keys and its widths byte does
/// not say they are in order (`docs/FORMAT.md`
/// section 6.18; see `layout::Shape`). Not a value: only a map record's
/// shape reference may refer to it.
pub const TAG_PACKED_SHAPE: u8 = 0x25;

/// Map of numbers (format version 2): varint shape reference, varint
/// values reference. Its values are the elements of the number array
/// record (`30`-`3A`) that the second reference locates, one per key of
/// the shape (`docs/FORMAT.md` section 6.19).
pub const TAG_NUM_MAP: u8 = 0x26;

/// Timestamp: i64 seconds, u32 nanoseconds.
pub const TAG_TIMESTAMP: u8 = 0x0A;
/// Timestamp with a UTC offset: i64 seconds, u32 nanoseconds, i32 offset seconds.
pub const TAG_TIMESTAMP_OFFSET: u8 = 0x0B;
/// UTF-8 string: varint length, bytes.
pub const TAG_STR: u8 = 0x0C;
/// Byte string: varint length, bytes.
pub const TAG_BYTES: u8 = 0x0D;
/// Extension: varint type id, varint length, bytes.
pub const TAG_EXT: u8 = 0x0E;
/// Typed numeric vector: element type, varint count, zero padding, data.
pub const TAG_VECTOR: u8 = 0x0F;
/// Shaped vector (version 2): element type, varint `ndim` (2 to
/// [`SHAPED_VECTOR_MAX_NDIM`]), `ndim` varint dimensions, zero padding,
/// then the product of the dimensions times the element size in bytes of
/// data, row-major (C order).
pub const TAG_SHAPED_VECTOR: u8 = 0x23;
/// Most dimensions a shaped vector may have (as numpy's arrays).
pub const SHAPED_VECTOR_MAX_NDIM: usize = 64;
/// Most rows a shaped vector without elements may have: the product of its
/// dimensions before the first 0. Its JSON and serde forms are that many
/// empty arrays (times at most 63 levels), so the bound keeps what a few
/// bytes stand for small (section 6.17).
pub const SHAPED_VECTOR_MAX_EMPTY_ROWS: u64 = 4096;

/// Whether a shaped vector of dimensions `dims` may be written: its
/// element count is not 0, or the product of the dimensions before its
/// first 0 is at most [`SHAPED_VECTOR_MAX_EMPTY_ROWS`]. The element
/// count's overflow is checked elsewhere.
pub fn shaped_vector_rows_ok(dims: impl IntoIterator<Item = u64>) -> bool {
    let mut rows = 1u64;
    for d in dims {
        if d == 0 {
            return rows <= SHAPED_VECTOR_MAX_EMPTY_ROWS;
        }
        rows = rows.saturating_mul(d);
    }
    true
}
/// Array records, one tag per slot width (1, 2, 4, 8 bytes).
pub const TAG_ARRAY: u8 = 0x10;
/// Map records, one tag per slot width.
pub const TAG_MAP: u8 = 0x14;
/// Shape (shared key list) records, one tag per slot width.
pub const TAG_SHAPE: u8 = 0x18;
/// Root records, one tag per slot width; the last record of a document.
pub const TAG_ROOT: u8 = 0x1C;
/// Number array records (version 2), one tag per element type: `0x30 + t`
/// for `t` a vector element type code (0..=9, [`ElemType`](super::ElemType)),
/// and [`TAG_NUM_ARRAY_DEC`] for decimal mantissas.
pub const TAG_NUM_ARRAY: u8 = 0x30;
/// Number array record of decimal mantissas (version 2): `i8` exponent,
/// then `i32` mantissas.
pub const TAG_NUM_ARRAY_DEC: u8 = 0x3A;
/// Stride array (version 2): varint count `n`, varint stride `s`; its
/// elements are the `n` records that start at `s`-byte steps right before
/// it, element `i` at `pos - (n - i) * s` (`docs/FORMAT.md` section 6.16;
/// see `layout::StrideArray`).
pub const TAG_STRIDE_ARRAY: u8 = 0x3B;
/// First short-string tag: `0x80 + len` for strings of 0..=63 bytes.
pub const TAG_SHORT_STR: u8 = 0x80;
/// Longest string that uses a short-string tag.
pub const SHORT_STR_MAX: usize = 0x3F;

/// Slot widths in bytes, indexed by the low two bits of a container tag.
pub const WIDTHS: [usize; 4] = [1, 2, 4, 8];

/// Width code (0..=3) of a width in bytes.
#[inline]
pub const fn width_code(width: usize) -> u8 {
    match width {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    }
}

/// Largest absolute exponent of a decimal float.
pub const F_DEC_MAX_EXP: i8 = 22;
/// Payload length of a decimal float record: i8 exponent, i32 mantissa.
pub const F_DEC_PAYLOAD: usize = 5;

/// Slot width in bytes of a container tag (array, map, shape or root):
/// its low two bits index [`WIDTHS`].
#[inline(always)]
pub const fn tag_width(tag: u8) -> usize {
    WIDTHS[(tag & 3) as usize]
}

/// Width code (0..=3) of a container tag: its low two bits, the index of
/// its slot width in [`WIDTHS`].
#[inline(always)]
pub const fn tag_width_code(tag: u8) -> u8 {
    tag & 3
}

/// True for a short-string tag (`80`-`BF`).
#[inline(always)]
pub const fn is_short_str(tag: u8) -> bool {
    tag & 0xC0 == TAG_SHORT_STR
}

/// Length of the string of a short-string tag (its low six bits).
#[inline(always)]
pub const fn short_str_len(tag: u8) -> usize {
    (tag & 0x3F) as usize
}

/// The short-string tag of a string of `len` (at most [`SHORT_STR_MAX`]) bytes.
#[inline(always)]
pub const fn short_str_tag(len: usize) -> u8 {
    TAG_SHORT_STR | len as u8
}

/// True for an array tag (`10`-`13`).
#[inline(always)]
pub const fn is_array(tag: u8) -> bool {
    tag & !3 == TAG_ARRAY
}

/// True for a map tag (`14`-`17`).
#[inline(always)]
pub const fn is_map(tag: u8) -> bool {
    tag & !3 == TAG_MAP
}

/// True for a shape tag with key slots (`18`-`1B`).
#[inline(always)]
pub const fn is_shape(tag: u8) -> bool {
    tag & !3 == TAG_SHAPE
}

/// True for a tag of either kind of shape: key slots (`18`-`1B`) or
/// packed keys (`25`, version 2).
#[inline(always)]
pub const fn is_any_shape(tag: u8) -> bool {
    is_shape(tag) || tag == TAG_PACKED_SHAPE
}

/// True for a number array tag (`30`-`3A`, version 2).
#[inline(always)]
pub const fn is_num_array(tag: u8) -> bool {
    tag >= TAG_NUM_ARRAY && tag <= TAG_NUM_ARRAY_DEC
}

/// True for a root tag (`1C`-`1F`).
#[inline(always)]
pub const fn is_root(tag: u8) -> bool {
    tag & !3 == TAG_ROOT
}

/// True for the tag of a string record, short (`80`-`BF`) or long (`0C`):
/// what a shape's key slots may refer to.
#[inline(always)]
pub const fn is_str(tag: u8) -> bool {
    is_short_str(tag) || tag == TAG_STR
}

/// The kind of record a tag byte starts: one variant per record type of
/// the format (the container kinds stand for their four slot widths, see
/// [`tag_width`]; short strings for their 64 lengths, see
/// [`short_str_len`]), and [`Unknown`](RecordKind::Unknown) for the
/// undefined tags.
///
/// Code that treats each kind of record differently matches on this enum
/// with no catch-all arm, so that a new record type makes the compiler
/// list every place that must learn it.
///
/// ```
/// use roving::layout::RecordKind;
/// assert_eq!(RecordKind::of(0x83), RecordKind::ShortStr);
/// assert_eq!(RecordKind::of(0x15), RecordKind::Map);
/// assert_eq!(RecordKind::of(0x00), RecordKind::Unknown);
/// assert!(RecordKind::Map.is_value() && !RecordKind::Shape.is_value());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// `01`: a signed 8-bit integer.
    I8,
    /// `02`: a signed 16-bit integer.
    I16,
    /// `03`: a signed 32-bit integer.
    I32,
    /// `04`: a signed 64-bit integer.
    I64,
    /// `05`: an unsigned 64-bit integer.
    U64,
    /// `06`: a positive big integer.
    BigIntPos,
    /// `07`: a negative big integer.
    BigIntNeg,
    /// `08`: a binary32 float.
    F32,
    /// `09`: a binary64 float.
    F64,
    /// `20`: a decimal float.
    FDec,
    /// `0A`: a timestamp.
    Timestamp,
    /// `0B`: a timestamp with a UTC offset.
    TimestampOffset,
    /// `80`-`BF`: a string of up to [`SHORT_STR_MAX`] bytes.
    ShortStr,
    /// `0C`: a string with a varint length.
    Str,
    /// `0D`: a byte string.
    Bytes,
    /// `0E`: an extension value.
    Ext,
    /// `0F`: a typed numeric vector.
    Vector,
    /// `23` (version 2): a typed numeric vector with a shape of 2 or more
    /// dimensions.
    ShapedVector,
    /// `10`-`13`: an array.
    Array,
    /// `14`-`17`: a map.
    Map,
    /// `18`-`1B`: a shape (key list); not a value.
    Shape,
    /// `1C`-`1F`: the root record; not a value.
    Root,
    /// `30`-`3A` (version 2): an array of numbers of one element type,
    /// packed.
    NumArray,
    /// `22`: an array of strings, packed (format version 2 only).
    StrArray,
    /// `3B` (version 2): an array whose elements are the records right
    /// before it, at equal steps.
    StrideArray,
    /// `25` (version 2): a shape whose keys are packed; not a value.
    PackedShape,
    /// `26` (version 2): a map whose values are the elements of a number
    /// array record.
    NumMap,
    /// Any other tag: not a record of this format version.
    Unknown,
}

impl RecordKind {
    /// The kind of record that `tag` starts (one table load).
    #[inline(always)]
    pub fn of(tag: u8) -> RecordKind {
        KINDS[tag as usize]
    }

    /// [`of`](Self::of), computed (for building the table).
    const fn classify(tag: u8) -> RecordKind {
        use RecordKind::*;
        match tag {
            TAG_I8 => I8,
            TAG_I16 => I16,
            TAG_I32 => I32,
            TAG_I64 => I64,
            TAG_U64 => U64,
            TAG_BIGINT_POS => BigIntPos,
            TAG_BIGINT_NEG => BigIntNeg,
            TAG_F32 => F32,
            TAG_F64 => F64,
            TAG_F_DEC => FDec,
            TAG_TIMESTAMP => Timestamp,
            TAG_TIMESTAMP_OFFSET => TimestampOffset,
            TAG_STR => Str,
            TAG_BYTES => Bytes,
            TAG_EXT => Ext,
            TAG_VECTOR => Vector,
            TAG_SHAPED_VECTOR => ShapedVector,
            TAG_STR_ARRAY => StrArray,
            TAG_STRIDE_ARRAY => StrideArray,
            TAG_PACKED_SHAPE => PackedShape,
            TAG_NUM_MAP => NumMap,
            t if is_array(t) => Array,
            t if is_map(t) => Map,
            t if is_shape(t) => Shape,
            t if is_root(t) => Root,
            t if is_num_array(t) => NumArray,
            t if is_short_str(t) => ShortStr,
            // The one catch-all over tag bytes: every byte that is not a
            // tag above is undefined.
            _ => Unknown,
        }
    }

    /// True for the records a value slot may refer to: all but shapes,
    /// roots and unknown tags.
    #[inline]
    pub const fn is_value(self) -> bool {
        use RecordKind::*;
        match self {
            I8 | I16 | I32 | I64 | U64 | BigIntPos | BigIntNeg | F32 | F64 | FDec | Timestamp
            | TimestampOffset | ShortStr | Str | Bytes | Ext | Vector | Array | Map => true,
            NumArray => true,
            ShapedVector => true,
            StrArray => true,
            StrideArray => true,
            NumMap => true,
            Shape | PackedShape | Root | Unknown => false,
        }
    }

    /// Length in bytes of the payload after the tag, for the kinds whose
    /// records have a fixed length (`None` for the others).
    #[inline]
    pub const fn fixed_payload(self) -> Option<usize> {
        use RecordKind::*;
        match self {
            I8 => Some(1),
            I16 => Some(2),
            I32 | F32 => Some(4),
            I64 | U64 | F64 => Some(8),
            FDec => Some(F_DEC_PAYLOAD),
            Timestamp => Some(TIMESTAMP_PAYLOAD),
            TimestampOffset => Some(TIMESTAMP_OFFSET_PAYLOAD),
            BigIntPos | BigIntNeg | ShortStr | Str | Bytes | Ext | Vector | Array | Map | Shape
            | Root | Unknown => None,
            NumArray => None,
            ShapedVector => None,
            StrArray => None,
            StrideArray => None,
            PackedShape => None,
            NumMap => None,
        }
    }
}

/// True for the tags of records a value slot may refer to
/// ([`RecordKind::is_value`] of the tag's kind, one table load).
#[inline(always)]
pub fn is_value_tag(tag: u8) -> bool {
    VALUE_TAGS[tag as usize]
}

/// [`is_value_tag`] of every byte.
static VALUE_TAGS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = RecordKind::classify(i as u8).is_value();
        i += 1;
    }
    t
};

/// [`RecordKind::of`] of every byte.
static KINDS: [RecordKind; 256] = {
    let mut t = [RecordKind::Unknown; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = RecordKind::classify(i as u8);
        i += 1;
    }
    t
};

/// Payload length of a timestamp record (`0A`): i64 seconds, u32 nanoseconds.
pub const TIMESTAMP_PAYLOAD: usize = 12;
/// Payload length of a timestamp record with an offset (`0B`): i64
/// seconds, u32 nanoseconds, i32 offset seconds.
pub const TIMESTAMP_OFFSET_PAYLOAD: usize = 16;
/// Offset of the nanoseconds in a timestamp payload.
pub const TIMESTAMP_NANOS_AT: usize = 8;
/// Offset of the UTC offset in a `0B` timestamp payload.
pub const TIMESTAMP_OFFSET_AT: usize = 12;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte's kind agrees with the tag constants.
    #[test]
    fn kinds_of_every_byte() {
        for b in 0..=255u8 {
            let k = RecordKind::of(b);
            assert_eq!(k, RecordKind::classify(b));
            assert_eq!(k == RecordKind::ShortStr, is_short_str(b));
            assert_eq!(k == RecordKind::Array, is_array(b));
            assert_eq!(k == RecordKind::Map, is_map(b));
            assert_eq!(k == RecordKind::NumArray, is_num_array(b));
            assert_eq!(is_value_tag(b), k.is_value());
            assert_eq!(
                k.is_value(),
                matches!(
                    b,
                    0x01..=0x17
                        | TAG_F_DEC
                        | 0x30..=0x3B
                        | TAG_SHAPED_VECTOR
                        | TAG_STR_ARRAY
                        | TAG_NUM_MAP
                ) || is_short_str(b),
                "{b:#x}"
            );
        }
    }
}
