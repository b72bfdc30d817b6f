//! The fast path of decoders that turn whole documents into other objects
//! (the Python package's `loads`): the parts of an array or map record, and
//! the value of a slot when it is one of the common scalars, read straight
//! from the bytes, with no [`crate::Value`] in between.
//!
//! Every read is bounds-checked, so bytes that are not a valid document give
//! `None` or wrong values at worst, never a panic; a validated document gives
//! what the reader gives.

use super::record::{container_header, fixed};
use super::slot::shape_target;
use super::slot::{SLOT_INT, SLOT_SPECIAL, SPECIAL_FALSE, SPECIAL_NULL, SPECIAL_TRUE};
use super::tags::*;
use super::varint::{read_uint, read_varint};
use super::{f32_to_f64_exact, f_dec_value};

/// A slot's value when it is a common scalar (see [`scalar_slot`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarSlot<'a> {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer: inline in the slot, or an `i8` to `i64` record.
    Int(i64),
    /// A float: an `f32`, `f64` or decimal float record.
    Float(f64),
    /// The UTF-8 bytes of a short string record (`80`-`BF`), not checked.
    ShortStr(&'a [u8]),
}

/// The value of the slot at `at` (`width` bytes) of the container record at
/// `base` in `buf` if it is `null`, a boolean, an integer (inline or an
/// `i8`-`i64` record), a float record or a short string record; `None` for
/// anything else (other constants, other records, a reference that does
/// not point before `base`, bytes out of bounds), which the caller reads
/// through [`crate::read`].
///
/// ```
/// use roving::layout::{scalar_slot, ScalarSlot};
/// // [7, "ab", 0.5]: the string and the float are records, then the array
/// // record of three 1-byte slots.
/// let bytes = roving::json::from_json(br#"[7,"ab",0.5]"#)?;
/// let base = bytes.len() - 3 - 5; // before the root record (3 bytes)
/// assert_eq!(bytes[base], 0x10);
/// let slot = |i| scalar_slot(&bytes, base + 2 + i, 1, base);
/// assert_eq!(slot(0), Some(ScalarSlot::Int(7)));
/// assert_eq!(slot(1), Some(ScalarSlot::ShortStr(b"ab")));
/// assert_eq!(slot(2), Some(ScalarSlot::Float(0.5)));
/// # Ok::<(), roving::Error>(())
/// ```
#[inline(always)]
pub fn scalar_slot(buf: &[u8], at: usize, width: usize, base: usize) -> Option<ScalarSlot<'_>> {
    let raw = read_uint(buf, at, width)?;
    match raw & 3 {
        SLOT_INT => {
            let sh = 64 - 8 * width as u32;
            Some(ScalarSlot::Int(((raw as i64) << sh) >> (sh + 2)))
        }
        SLOT_SPECIAL => match raw >> 2 {
            SPECIAL_NULL => Some(ScalarSlot::Null),
            SPECIAL_FALSE => Some(ScalarSlot::Bool(false)),
            SPECIAL_TRUE => Some(ScalarSlot::Bool(true)),
            _ => None,
        },
        _ => {
            let d = (raw >> 2) as usize;
            let t = if raw & 2 == 0 {
                base.wrapping_sub(d)
            } else {
                d
            };
            if t >= base {
                return None;
            }
            let tag = *buf.get(t)?;
            if is_short_str(tag) {
                return buf
                    .get(t + 1..t + 1 + short_str_len(tag))
                    .map(ScalarSlot::ShortStr);
            }
            let p = t + 1;
            Some(match tag {
                TAG_F_DEC => {
                    let [e, m0, m1, m2, m3] = fixed::<5>(buf, p)?;
                    ScalarSlot::Float(f_dec_value(i32::from_le_bytes([m0, m1, m2, m3]), e as i8))
                }
                TAG_F64 => ScalarSlot::Float(f64::from_le_bytes(fixed(buf, p)?)),
                TAG_F32 => ScalarSlot::Float(f32_to_f64_exact(f32::from_le_bytes(fixed(buf, p)?))),
                TAG_I8 => ScalarSlot::Int(i8::from_le_bytes(fixed(buf, p)?) as i64),
                TAG_I16 => ScalarSlot::Int(i16::from_le_bytes(fixed(buf, p)?) as i64),
                TAG_I32 => ScalarSlot::Int(i32::from_le_bytes(fixed(buf, p)?) as i64),
                TAG_I64 => ScalarSlot::Int(i64::from_le_bytes(fixed(buf, p)?)),
                _ => return None,
            })
        }
    }
}

/// The parts of an array record (`10`-`13`) that a decoder walking its
/// slots needs (see [`array_record_parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayRecordParts {
    /// Number of elements.
    pub len: usize,
    /// Position of the first slot.
    pub slots: usize,
    /// Slot width in bytes.
    pub width: usize,
}

/// The parts of the array record (`10`-`13`) at `pos` of `buf`; `None` if
/// it is not one, does not decode or its slots do not fit in `buf` (never
/// for an array record of a validated document).
#[inline(always)]
pub fn array_record_parts(buf: &[u8], pos: usize) -> Option<ArrayRecordParts> {
    let tag = *buf.get(pos)?;
    if !is_array(tag) {
        return None;
    }
    let (n, slots) = read_varint(buf, pos + 1)?;
    let width = tag_width(tag);
    let len = usize::try_from(n).ok().filter(|&n| n <= buf.len())?;
    (slots + len * width <= buf.len()).then_some(ArrayRecordParts { len, slots, width })
}

/// The parts of a map record (`14`-`17`) that a decoder walking its value
/// slots needs (see [`map_record_parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapRecordParts {
    /// Position of its shape record (either kind of shape).
    pub shape: usize,
    /// Number of values (the shape's key count).
    pub len: usize,
    /// Position of the first value slot.
    pub slots: usize,
    /// Slot width in bytes.
    pub width: usize,
}

/// The parts of the map record (`14`-`17`) at `pos` of `buf`; `None` if it
/// is not one, its shape reference does not land on a shape record before
/// it, or its slots do not fit in `buf` (never for a map record of a
/// validated document).
#[inline(always)]
pub fn map_record_parts(buf: &[u8], pos: usize) -> Option<MapRecordParts> {
    let (tag, r, slots) = container_header(buf, pos)?;
    if !is_map(tag) {
        return None;
    }
    let shape = shape_target(r, pos)?;
    // Either kind of shape starts with its key count.
    if !is_any_shape(*buf.get(shape)?) {
        return None;
    }
    let (n, _) = read_varint(buf, shape + 1)?;
    let width = tag_width(tag);
    let len = usize::try_from(n).ok().filter(|&n| n <= buf.len())?;
    (slots + len * width <= buf.len()).then_some(MapRecordParts {
        shape,
        len,
        slots,
        width,
    })
}
