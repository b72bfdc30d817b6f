//! Arrays read in place: O(1) indexing.

use crate::format::read_varint;
use crate::read::value::{read_slot, slot_value, Value};

/// An array inside a document.
#[derive(Clone, Copy, Debug)]
pub struct Array<'a> {
    buf: &'a [u8],
    base: usize,
    slots: usize,
    len: usize,
    width: usize,
}

impl<'a> Array<'a> {
    pub(crate) fn empty() -> Array<'a> {
        Array {
            buf: &[],
            base: 0,
            slots: 0,
            len: 0,
            width: 1,
        }
    }

    #[inline]
    pub(crate) fn at(buf: &'a [u8], pos: usize, width: usize) -> Option<Array<'a>> {
        let (len, slots) = read_varint(buf, pos + 1)?;
        let len = usize::try_from(len).ok()?;
        Some(Array {
            buf,
            base: pos,
            slots,
            len,
            width,
        })
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`, or `None` past the end. O(1).
    #[inline]
    pub fn get(&self, i: usize) -> Option<Value<'a>> {
        if i >= self.len {
            return None;
        }
        let slot = read_slot(self.buf, self.slots + i * self.width, self.width, self.base);
        Some(slot_value(self.buf, slot))
    }

    /// The elements, in order.
    pub fn iter(&self) -> ArrayIter<'a> {
        ArrayIter {
            array: *self,
            next: 0,
        }
    }

    /// Byte offset of this array's record in the document (`None` for the
    /// empty array, which has no record). Equal offsets mean the same shared value.
    pub fn offset(&self) -> Option<usize> {
        (!self.buf.is_empty()).then_some(self.base)
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
    array: Array<'a>,
    next: usize,
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        let v = self.array.get(self.next)?;
        self.next += 1;
        Some(v)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.array.len - self.next.min(self.array.len);
        (n, Some(n))
    }
}

impl ExactSizeIterator for ArrayIter<'_> {}
