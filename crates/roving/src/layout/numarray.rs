//! Number array records (`30`-`3A`, format version 2): a JSON array of
//! numbers of one element type, packed.
//!
//! ```text
//! 3t  varint n  n elements           t = 0..9: a vector element type (LE, no padding)
//! 3A  varint n  i8 e  n x i32 m      element k: the binary64 nearest to m_k x 10^e
//! ```

use super::float::{f32_to_f64_exact, f_dec_value};
use super::record::ElemType;
use super::tags::*;
use super::varint::read_varint;

/// How the elements of a number array record are stored: as one of the
/// ten vector element types, or as `i32` decimal mantissas of one common
/// exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumElem {
    /// Tags `30`-`39`: little-endian elements of a vector element type
    /// (integers for `i8` to `u64`, floats for `f32` and `f64`).
    Binary(ElemType),
    /// Tag `3A`: `i32` mantissas `m`, each element the binary64 nearest to
    /// `m * 10^e` for this exponent `e` (-22..=22 in a valid document).
    Decimal(i8),
}

impl NumElem {
    /// Size of one element in bytes.
    #[inline(always)]
    pub fn size(self) -> usize {
        match self {
            NumElem::Binary(e) => e.size(),
            NumElem::Decimal(_) => 4,
        }
    }

    /// The record's tag.
    pub fn tag(self) -> u8 {
        match self {
            NumElem::Binary(e) => TAG_NUM_ARRAY + e as u8,
            NumElem::Decimal(_) => TAG_NUM_ARRAY_DEC,
        }
    }

    /// False for decimal mantissas whose exponent is out of the range
    /// -22..=22 (never in a validated document), else true.
    #[inline]
    pub fn exponent_in_range(self) -> bool {
        match self {
            NumElem::Decimal(e) => e.unsigned_abs() <= F_DEC_MAX_EXP as u8,
            NumElem::Binary(_) => true,
        }
    }

    /// True if the elements are floats (`f32`, `f64`, decimal), false for
    /// integers.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            NumElem::Binary(ElemType::F32 | ElemType::F64) | NumElem::Decimal(_)
        )
    }

    /// The encoding label of a number array record with tag `tag`
    /// (`numbers<i8>` ... `numbers<f64>`, `numbers<decimal>`).
    pub(crate) fn label(tag: u8) -> &'static str {
        const LABELS: [&str; 11] = [
            "numbers<i8>",
            "numbers<u8>",
            "numbers<i16>",
            "numbers<u16>",
            "numbers<i32>",
            "numbers<u32>",
            "numbers<i64>",
            "numbers<u64>",
            "numbers<f32>",
            "numbers<f64>",
            "numbers<decimal>",
        ];
        LABELS
            .get(tag.wrapping_sub(TAG_NUM_ARRAY) as usize)
            .copied()
            .unwrap_or("numbers")
    }
}

/// The parts of a number array record (see [`num_array_record`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NumArrayParts {
    /// How the elements are stored.
    pub(crate) elem: NumElem,
    /// Number of elements.
    pub(crate) count: usize,
    /// Position of the first element's bytes.
    pub(crate) data: usize,
}

impl NumArrayParts {
    /// The position after the record's last byte.
    #[inline(always)]
    pub(crate) fn end(&self) -> usize {
        // No overflow: `num_array_record` checked it.
        self.data + self.count * self.elem.size()
    }
}

/// The number array record at `pos`, if its header decodes and its
/// elements end within `buf` (the exponent of a decimal one is not
/// range-checked; the document's version is not checked).
#[inline]
pub(crate) fn num_array_record(buf: &[u8], pos: usize) -> Option<NumArrayParts> {
    let tag = *buf.get(pos)?;
    let (count, mut data) = read_varint(buf, pos.checked_add(1)?)?;
    let elem = match tag.checked_sub(TAG_NUM_ARRAY)? {
        10 => {
            let e = *buf.get(data)? as i8;
            data += 1;
            NumElem::Decimal(e)
        }
        code => NumElem::Binary(ElemType::from_code(code)?),
    };
    let count = usize::try_from(count).ok()?;
    let len = count.checked_mul(elem.size())?;
    buf.get(data..data.checked_add(len)?)?;
    Some(NumArrayParts { elem, count, data })
}

/// A number read from a number array: an integer of `i64`, one above
/// `i64::MAX`, or a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Num {
    /// An integer that fits in `i64`.
    Int(i64),
    /// An integer above `i64::MAX`.
    UInt(u64),
    /// A float.
    Float(f64),
}

/// Element `i` of the number array whose elements are `elem` at `data`
/// (`None` if its bytes are not in `buf`).
#[inline(always)]
pub(crate) fn num_at(buf: &[u8], elem: NumElem, data: usize, i: usize) -> Option<Num> {
    use ElemType as E;
    let at = data.checked_add(i.checked_mul(elem.size())?)?;
    let b = |n: usize| buf.get(at..at.checked_add(n)?);
    Some(match elem {
        NumElem::Binary(E::I8) => Num::Int(*buf.get(at)? as i8 as i64),
        NumElem::Binary(E::U8) => Num::Int(*buf.get(at)? as i64),
        NumElem::Binary(E::I16) => Num::Int(i16::from_le_bytes(b(2)?.try_into().ok()?) as i64),
        NumElem::Binary(E::U16) => Num::Int(u16::from_le_bytes(b(2)?.try_into().ok()?) as i64),
        NumElem::Binary(E::I32) => Num::Int(i32::from_le_bytes(b(4)?.try_into().ok()?) as i64),
        NumElem::Binary(E::U32) => Num::Int(u32::from_le_bytes(b(4)?.try_into().ok()?) as i64),
        NumElem::Binary(E::I64) => Num::Int(i64::from_le_bytes(b(8)?.try_into().ok()?)),
        NumElem::Binary(E::U64) => {
            let v = u64::from_le_bytes(b(8)?.try_into().ok()?);
            match i64::try_from(v) {
                Ok(v) => Num::Int(v),
                Err(_) => Num::UInt(v),
            }
        }
        NumElem::Binary(E::F32) => {
            Num::Float(f32_to_f64_exact(f32::from_le_bytes(b(4)?.try_into().ok()?)))
        }
        NumElem::Binary(E::F64) => Num::Float(f64::from_le_bytes(b(8)?.try_into().ok()?)),
        NumElem::Decimal(e) => {
            Num::Float(f_dec_value(i32::from_le_bytes(b(4)?.try_into().ok()?), e))
        }
    })
}
