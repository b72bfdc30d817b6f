//! Maps of numbers (format version 2): a map opened with its keys whose
//! values are all integers or all floats is written, when it ends, as one
//! number array record and a map of numbers record (`26`) that refers to
//! its shape and to that array (`docs/FORMAT.md` sections 6.19 and 14),
//! when that is smaller than a map record of slots.

use super::widths::int_records_by_width;
use super::Encoder;
use crate::layout::*;

impl Encoder {
    /// If the values of the map opened with its keys that ends now
    /// (slots `slots[start..]`, the values begun when the output was
    /// `out_start` bytes long) are numbers that [`Self::pack_numbers`]
    /// would pack, and their number array and a map of numbers are surely
    /// smaller than the smallest map record of slots, writes the number
    /// array at `out_start` and returns its position; else changes
    /// nothing and returns `None`.
    pub(super) fn try_num_map(&mut self, start: usize, out_start: usize) -> Option<usize> {
        let n = self.slots.len() - start;
        if n == 0 || self.marked.load(std::sync::atomic::Ordering::Relaxed) > out_start {
            return None;
        }
        let found = self.numbers_found(start, out_start)?;
        let elem = self.packed_elements(start, out_start, found, false)?;
        let decimal = usize::from(matches!(elem, NumElem::Decimal(_)));
        let array = 1 + varint_len(n as u64) + decimal + n * elem.size();
        // The map of numbers' values reference (the map's tag and shape
        // reference, which a map record of slots has too, differ by at
        // most a byte: counted against packing).
        let reference = varint_len((array as u64) << 1) + 1;
        if array + reference >= self.slot_values_floor(start, out_start) {
            return None;
        }
        Some(self.put_packed(start, out_start, elem))
    }

    /// A lower bound on what a map record of slots takes for the values
    /// `slots[start..]`, written since `out_start`, beyond its tag and
    /// shape reference: the smallest over the slot widths of the slots and
    /// the integer records that width needs, when every value is an
    /// inline integer; else the records written and one byte per slot.
    fn slot_values_floor(&self, start: usize, out_start: usize) -> usize {
        let n = self.slots.len() - start;
        let written = self.out.len() - out_start;
        if written > 0 {
            return written + n;
        }
        // Every slot an inline integer: the integer records each width needs.
        let (records, _) = int_records_by_width(&self.slots[start..], self.out.len());
        WIDTHS
            .iter()
            .zip(records)
            .map(|(&w, r)| n * w + r)
            .min()
            .unwrap_or(0)
    }
}
