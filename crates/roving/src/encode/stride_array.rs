//! Writing an array of number arrays as a stride array record (`3B`,
//! format version 2): no slot per element when the elements are the
//! records written right before it, at equal steps.

use super::containers::{Frame, ARRAY};
use super::pending::Pending;
use super::Encoder;
use crate::layout::{
    is_array, num_array_record, read_varint, tag_width, varint_len, write_stride_array, ElemType,
    NumElem, STRIDE_MAX, VERSION_2,
};

/// The tag of an `f64` number array record: a row of a matrix of floats.
pub(super) fn f64_row_tag() -> u8 {
    NumElem::Binary(ElemType::F64).tag()
}

/// Fewest elements written as a stride array (with one the slot form is
/// as small).
const STRIDE_MIN: usize = 2;

impl Encoder {
    /// Writes the open array's elements (its slots from `slots_start`) as
    /// a stride array, if they are records of number arrays (version 2
    /// records, so the document is of version 2 already) at equal steps
    /// that end where the array starts: the rows of a matrix or the
    /// coordinate pairs of a polygon. Nothing is moved: the records stay
    /// where they are, and other values may refer to them too. Else, if
    /// some rows hold integers among their floats, they may be laid out
    /// again ([`Self::try_matrix_rows`]). Returns the record's position.
    pub(super) fn try_stride_array(
        &mut self,
        slots_start: usize,
        out_start: usize,
    ) -> Option<Pending> {
        match self.stride_of_rows(slots_start) {
            Some(stride) => {
                let n = self.slots.len() - slots_start;
                let here = self.out.len();
                self.require_version(VERSION_2);
                write_stride_array(&mut self.out, n, stride);
                Some(Pending::record(here))
            }
            // Rows that hold integers among their floats, if any.
            None => self.try_matrix_rows(slots_start, out_start),
        }
    }

    /// The stride of the open array's elements (its slots from
    /// `slots_start`) if they are number array records of one size that
    /// tile the output up to its end, in order.
    fn stride_of_rows(&self, slots_start: usize) -> Option<usize> {
        let slots = self.slots.get(slots_start..)?;
        let n = slots.len();
        if n < STRIDE_MIN {
            return None;
        }
        let here = self.out.len();
        let first = slots[0].record_pos()?;
        let stride = slots[1].record_pos()?.checked_sub(first)?;
        if stride == 0
            || stride as u64 > STRIDE_MAX
            || first.checked_add(n.checked_mul(stride)?)? != here
        {
            return None;
        }
        // Number array records exactly `stride` bytes long (so that the
        // elements tile the bytes up to the array, FORMAT.md section
        // 6.16): the first one's header decoded; a later one with the same
        // tag and one-byte count has its length.
        if num_array_record(&self.out, first)?.end() != first + stride {
            return None;
        }
        let head = |at: usize| self.out.get(at..at + 2);
        let first_head = head(first).filter(|h| h[1] < 0x80);
        let mut at = first;
        for p in slots {
            if *p != Pending::record(at) {
                return None;
            }
            if at != first
                && (first_head.is_none() || head(at) != first_head)
                && num_array_record(&self.out, at)?.end() != at + stride
            {
                return None;
            }
            at += stride;
        }
        Some(stride)
    }

    /// Whether an array of `n` floats that ends now, whose slots start at
    /// `row_slots` and whose record would start at `row_at`, in the array
    /// `parent`, should be an `f64` number array whatever its elements
    /// are: its previous sibling ends at `row_at` and is an `f64` number
    /// array of `n` elements, or an array record of `n` slots (a row with
    /// integers among its floats, which [`Self::try_matrix_rows`] may
    /// resize to an f64 row's size) in an array whose first element is an
    /// `f64` number array of `n` elements. The rows of a matrix then all
    /// take one size (a row of `f32` or decimal values among `f64` rows
    /// would break the stride: the polygons of `canada.json` have such
    /// points), so that [`Self::try_stride_array`] can write the parent
    /// without slots.
    #[inline]
    pub(super) fn follows_f64_row(
        &self,
        parent: &Frame,
        row_slots: usize,
        row_at: usize,
        n: usize,
    ) -> bool {
        if parent.state != ARRAY || parent.slots_start >= row_slots {
            return false;
        }
        let Some(prev) = self.slots.get(row_slots - 1).and_then(|p| p.record_pos()) else {
            return false;
        };
        let f64_tag = f64_row_tag();
        let size = match self.out.get(prev) {
            Some(&t) if t == f64_tag => 8,
            Some(&t) if is_array(t) => {
                let first = self.slots[parent.slots_start].record_pos();
                if !first.is_some_and(|f| self.out.get(f) == Some(&f64_tag) && self.count_is(f, n))
                {
                    return false;
                }
                tag_width(t)
            }
            _ => return false,
        };
        prev + 1 + varint_len(n as u64) + size * n == row_at && self.count_is(prev, n)
    }

    /// Whether the record at `at` has the count `n` (the varint after its
    /// tag).
    #[inline(always)]
    fn count_is(&self, at: usize, n: usize) -> bool {
        match u8::try_from(n) {
            // A one-byte varint (the count of a point, a short row).
            Ok(b) if b < 0x80 => self.out.get(at + 1) == Some(&b),
            _ => read_varint(&self.out, at + 1).is_some_and(|(v, _)| v == n as u64),
        }
    }
}
