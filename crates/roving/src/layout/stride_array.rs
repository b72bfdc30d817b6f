//! Stride array records (`3B`, format version 2): an array whose elements
//! are the records written right before it, at equal steps.
//!
//! ```text
//! 3B  varint n  varint s        element i: the record at pos - (n - i) * s
//! ```
//!
//! An array of `n` equal-size records (coordinate pairs written as number
//! arrays, say) needs no slot per element: its elements are found by
//! arithmetic from the array's own position.

use super::root::allows_v2;
use super::tags::{HEADER_LEN, TAG_STRIDE_ARRAY};
use super::varint::{read_varint, varint_len, write_varint};

/// Largest stride: a stride is at most `u32::MAX` bytes (readers keep it
/// in 32 bits).
pub const STRIDE_MAX: u64 = u32::MAX as u64;

/// The header of a stride array record, decoded by [`StrideArray::at`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrideArray {
    /// Number of elements.
    pub(crate) count: usize,
    /// Distance in bytes between two elements' records (1 to
    /// [`STRIDE_MAX`]).
    pub(crate) stride: usize,
    /// Position of element 0's record: the record's position minus
    /// `count * stride`, at least [`HEADER_LEN`].
    pub(crate) first: usize,
    /// The position after the record (after the stride's varint).
    pub(crate) end: usize,
}

impl StrideArray {
    /// The stride array record at `pos` of `buf` (whose tag is
    /// [`TAG_STRIDE_ARRAY`]): `None` unless `buf` is a version 2 document,
    /// both varints decode, the stride is 1 to [`STRIDE_MAX`] and the
    /// elements start at or after the header ([`stride_array_fault`] says
    /// which rule failed).
    #[inline]
    pub(crate) fn at(buf: &[u8], pos: usize) -> Option<StrideArray> {
        if buf.get(pos) != Some(&TAG_STRIDE_ARRAY) || !allows_v2(buf) {
            return None;
        }
        let (n, p) = read_varint(buf, pos + 1)?;
        let (s, end) = read_varint(buf, p)?;
        if s == 0 || s > STRIDE_MAX {
            return None;
        }
        let span = n.checked_mul(s)?;
        let first = (pos as u64).checked_sub(span)?;
        if first < HEADER_LEN as u64 {
            return None;
        }
        Some(StrideArray {
            count: n as usize,
            stride: s as usize,
            first: first as usize,
            end,
        })
    }

    /// Position of element `i`'s record (`i` below [`Self::count`]).
    #[inline(always)]
    pub(crate) fn element(&self, i: usize) -> usize {
        self.first + i * self.stride
    }
}

/// Why the stride array record at `pos` does not decode: `Truncated` for a
/// varint cut short, `BadLength` for a stride of 0 or above
/// [`STRIDE_MAX`], `BadReference` for elements that would start before the
/// document's records, `UnknownTag` in a version 1 document.
#[cold]
pub(crate) fn stride_array_fault(buf: &[u8], pos: usize) -> crate::error::Error {
    use crate::error::{Error, ErrorKind};
    if !allows_v2(buf) {
        return Error::at(ErrorKind::UnknownTag(TAG_STRIDE_ARRAY), pos)
            .with_message("a version 2 record in a version 1 document");
    }
    let Some((_, p)) = read_varint(buf, pos + 1) else {
        return Error::at(ErrorKind::Truncated, pos + 1).with_message("a stride array's count");
    };
    let Some((s, _)) = read_varint(buf, p) else {
        return Error::at(ErrorKind::Truncated, p).with_message("a stride array's stride");
    };
    if s == 0 || s > STRIDE_MAX {
        return Error::at(ErrorKind::BadLength, p)
            .with_message("a stride array's stride is 0 or above 2^32 - 1");
    }
    Error::at(ErrorKind::BadReference, pos + 1)
        .with_message("a stride array's elements would start before the first record")
}

/// Appends a stride array record of `count` elements `stride` bytes apart.
pub(crate) fn write_stride_array(out: &mut Vec<u8>, count: usize, stride: usize) {
    out.reserve(1 + varint_len(count as u64) + varint_len(stride as u64));
    out.push(TAG_STRIDE_ARRAY);
    write_varint(out, count as u64);
    write_varint(out, stride as u64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::VERSION_2;

    #[test]
    fn header_and_elements() {
        // Two 2-byte records (`81 61` "a", `81 62` "b") at 3 and 5, then
        // the stride array at 7.
        let mut buf = vec![b'R', b'V', VERSION_2, 0x81, b'a', 0x81, b'b'];
        write_stride_array(&mut buf, 2, 2);
        let s = StrideArray::at(&buf, 7).unwrap();
        assert_eq!((s.count, s.stride, s.first, s.end), (2, 2, 3, 10));
        assert_eq!((s.element(0), s.element(1)), (3, 5));
        // Elements before the header, a zero stride, a version 1 document.
        let mut far = buf[..7].to_vec();
        write_stride_array(&mut far, 3, 2);
        assert_eq!(StrideArray::at(&far, 7), None);
        assert_eq!(
            stride_array_fault(&far, 7).kind(),
            &crate::ErrorKind::BadReference
        );
        let mut zero = buf[..7].to_vec();
        write_stride_array(&mut zero, 0, 0);
        assert_eq!(StrideArray::at(&zero, 7), None);
        assert_eq!(
            stride_array_fault(&zero, 7).kind(),
            &crate::ErrorKind::BadLength
        );
        let mut v1 = buf.clone();
        v1[2] = 1;
        assert_eq!(StrideArray::at(&v1, 7), None);
        assert_eq!(
            stride_array_fault(&v1, 7).kind(),
            &crate::ErrorKind::UnknownTag(TAG_STRIDE_ARRAY)
        );
        // Cut short.
        assert_eq!(StrideArray::at(&buf[..9], 7), None);
        assert_eq!(
            stride_array_fault(&buf[..9], 7).kind(),
            &crate::ErrorKind::Truncated
        );
    }
}
