//! Arrays read in place: O(1) indexing.

use crate::format::{read_varint, WIDTHS};
use crate::read::value::{read_slot, slot_value, Value};

/// An array inside a document: a position; its header is decoded on use,
/// so that a `Value` stays two words and copying it is cheap.
#[derive(Clone, Copy, Debug)]
pub struct Array<'a> {
    buf: &'a [u8],
    pos: usize,
}

#[derive(Clone, Copy, Debug)]
struct Header {
    slots: usize,
    len: usize,
    width: usize,
}

impl<'a> Array<'a> {
    /// Address of the document's bytes (with [`pos`](Self::pos), the
    /// record's identity while the buffer lives).
    pub(crate) fn buf_addr(&self) -> usize {
        self.buf.as_ptr() as usize
    }

    /// Position of the record (0 for the empty immediate).
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn empty() -> Array<'a> {
        Array { buf: &[], pos: 0 }
    }

    #[inline(always)]
    pub(crate) fn at(buf: &'a [u8], pos: usize) -> Array<'a> {
        Array { buf, pos }
    }

    #[inline(always)]
    fn header(&self) -> Option<Header> {
        let tag = *self.buf.get(self.pos)?;
        let (len, slots) = read_varint(self.buf, self.pos + 1)?;
        Some(Header {
            slots,
            len: usize::try_from(len).ok().filter(|&l| l <= self.buf.len())?,
            width: WIDTHS[(tag & 3) as usize],
        })
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.header().map_or(0, |h| h.len)
    }

    /// True if there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`, or `None` past the end. O(1).
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        let h = self.header()?;
        if i >= h.len {
            return None;
        }
        let slot = read_slot(self.buf, h.slots + i * h.width, h.width, self.pos);
        Some(slot_value(self.buf, slot))
    }

    /// The elements, in order.
    pub fn iter(&self) -> ArrayIter<'a> {
        let h = self.header().unwrap_or(Header {
            slots: 0,
            len: 0,
            width: 1,
        });
        ArrayIter {
            buf: self.buf,
            base: self.pos,
            h,
            next: 0,
        }
    }

    /// Byte offset of this array's record in the document (`None` for the
    /// empty array, which has no record). Equal offsets mean the same shared value.
    pub fn offset(&self) -> Option<usize> {
        (!self.buf.is_empty()).then_some(self.pos)
    }

    /// Length of the whole document this array is in (0 for the empty array).
    pub(crate) fn doc_len(&self) -> usize {
        self.buf.len()
    }
}

impl<'a> IntoIterator for Array<'a> {
    type Item = Value<'a>;
    type IntoIter = ArrayIter<'a>;
    fn into_iter(self) -> ArrayIter<'a> {
        self.iter()
    }
}

/// Iterator over the elements of an [`Array`].
#[derive(Clone, Debug)]
pub struct ArrayIter<'a> {
    buf: &'a [u8],
    base: usize,
    h: Header,
    next: usize,
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        if self.next >= self.h.len {
            return None;
        }
        let w = self.h.width;
        let slot = read_slot(self.buf, self.h.slots + self.next * w, w, self.base);
        self.next += 1;
        Some(slot_value(self.buf, slot))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.h.len - self.next.min(self.h.len);
        (n, Some(n))
    }
}

impl ExactSizeIterator for ArrayIter<'_> {}
