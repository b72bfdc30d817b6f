//! A matrix whose rows are not all number arrays of one size: the rows
//! that hold whole numbers among their floats (`[-125, 69.7]` among the
//! `f64` coordinate pairs of a polygon: JSON writers print `-125.0` as
//! `-125`) are array records of narrow slots, each after the records of
//! its floats, so the rows do not tile the output and
//! [`Encoder::try_stride_array`] cannot write the matrix as a stride
//! array (`3B`, FORMAT.md section 6.16).
//!
//! When the matrix ends, [`Encoder::try_matrix_rows`] lays its bytes out
//! again if that is smaller: the number records that such rows refer to
//! first, then every row at one size (an `f64` number array as it is, a
//! mixed row as an array record of 8-byte slots: `1 + varint(m) + 8 m`
//! bytes, the size of an `f64` row of `m` numbers), then the stride
//! array. Only the encoder's own output since the matrix opened moves,
//! and nothing outside it refers into it (no mark is held there, and no
//! string, key or shape record lies in it).

use std::sync::atomic::Ordering;

use super::pending::Pending;
use super::stride_array::f64_row_tag;
use super::widths::need_width;
use super::Encoder;
use crate::layout::*;

/// A row of the matrix as found by [`Encoder::try_matrix_rows`].
#[derive(Clone, Copy)]
struct Row {
    /// Where the number records that the row refers to start (the end of
    /// the previous row, or where the matrix opened): they run to `at`.
    gap: usize,
    /// The row record's position.
    at: usize,
    /// Its slot width, or 0 for an `f64` number array (kept as it is).
    width: usize,
    /// Where its slots start (an array record's).
    slots: usize,
    /// Where the row record ends.
    end: usize,
    /// Its index in the matrix.
    index: usize,
}

/// The length of a number record (an integer or float record of fixed
/// size) with `tag`, or `None` for any other record.
fn number_record_len(tag: u8) -> Option<usize> {
    match tag {
        TAG_I8 | TAG_I16 | TAG_I32 | TAG_I64 | TAG_U64 | TAG_F32 | TAG_F64 | TAG_F_DEC => {
            Some(1 + RecordKind::of(tag).fixed_payload()?)
        }
        _ => None,
    }
}

impl Encoder {
    /// Writes the open array's elements (slots from `slots_start`, output
    /// from `out_start`) as a stride array of rows of `m` numbers if they
    /// are `f64` number arrays of `m` elements and array records of `m`
    /// slots holding inline integers and references to the number records
    /// right before them, and the stride array is smaller than the array
    /// of slots. Returns the stride array record's position.
    pub(super) fn try_matrix_rows(
        &mut self,
        slots_start: usize,
        out_start: usize,
    ) -> Option<Pending> {
        let here = self.out.len();
        let n = self.slots.len().checked_sub(slots_start)?;
        if n < 2 || self.marked.load(Ordering::Relaxed) > out_start {
            return None;
        }
        let first = self.slots[slots_start].record_pos()?;
        let (tag, m, _) = container_header(&self.out, first)?;
        if tag != f64_row_tag() && !is_array(tag) {
            return None;
        }
        let m = usize::try_from(m).ok().filter(|&m| m > 0)?;
        let stride = 1 + varint_len(m as u64) + m.checked_mul(8)?;
        if stride as u64 > STRIDE_MAX {
            return None;
        }
        // An f64 row's first two bytes (its tag and a one-byte count),
        // compared instead of decoding its head.
        let f64_head = [f64_row_tag(), m as u8];
        let short_count = m < 0x80;
        // The rows to resize (the f64 rows stay as they are, in runs).
        let mut mixed = Vec::new();
        let mut at = out_start;
        let (mut gaps, mut far) = (0usize, 0usize);
        for (index, p) in self.slots[slots_start..].iter().enumerate() {
            let r = p.record_pos().filter(|&r| r >= at)?;
            far = far.max((here - r).min(r));
            if r == at && short_count && self.out.get(r..r + 2) == Some(&f64_head[..]) {
                at += stride;
                continue;
            }
            let row = self.matrix_row(at, r, m, stride, index)?;
            gaps += r - at;
            at = row.end;
            if row.width != 0 {
                mixed.push(row);
            }
        }
        if at != here || mixed.is_empty() {
            return None;
        }
        // The array of slots (as `write_container` would size it, at
        // least) against the records moved, resized and the stride array.
        let slots_form =
            (here - out_start) + 1 + varint_len(n as u64) + n * need_width((far as u64) << 2);
        let rows_len = n.checked_mul(stride)?;
        let stride_form = gaps + rows_len + 1 + varint_len(n as u64) + varint_len(stride as u64);
        if stride_form >= slots_form {
            return None;
        }
        // The gaps' bytes and the mixed rows at 8-byte slots, made first
        // (small: a few rows), so that nothing can fail once the output
        // changes.
        let mut aside = std::mem::take(&mut self.scratch);
        aside.clear();
        let made = self.wide_rows(&mixed, out_start, gaps, m, stride, &mut aside);
        if made.is_none() || aside.len() != gaps + mixed.len() * stride {
            // (Unreachable: every row was checked above.)
            self.scratch = aside;
            return None;
        }
        // Then in place, from the end (every byte moves up or stays): the
        // runs of f64 rows after each mixed row, each mixed row, the run
        // before the first, and the gaps before all rows.
        let (gap_bytes, wide) = aside.split_at(gaps);
        self.out.resize(out_start + gaps + rows_len, 0);
        let mut run_end = here;
        for (row, wide) in mixed.iter().zip(wide.chunks_exact(stride)).rev() {
            let to = out_start + gaps + row.index * stride;
            self.out.copy_within(row.end..run_end, to + stride);
            self.out[to..to + stride].copy_from_slice(wide);
            run_end = row.gap;
        }
        self.out.copy_within(out_start..run_end, out_start + gaps);
        self.out[out_start..out_start + gaps].copy_from_slice(gap_bytes);
        self.scratch = aside;
        let pos = self.out.len();
        debug_assert_eq!(pos, out_start + gaps + rows_len);
        self.require_version(VERSION_2);
        write_stride_array(&mut self.out, n, stride);
        Some(Pending::record(pos))
    }

    /// Appends to `aside` the gaps of the `mixed` rows (checked by
    /// [`Self::matrix_row`]), then each of those rows as an array record of
    /// `m` 8-byte slots, its references rewritten to where its gap's
    /// records move: all the gaps, `gaps` bytes, from `out_start`, and row
    /// `i` of the matrix at `out_start + gaps + i × stride`.
    fn wide_rows(
        &self,
        mixed: &[Row],
        out_start: usize,
        gaps: usize,
        m: usize,
        stride: usize,
        aside: &mut Vec<u8>,
    ) -> Option<()> {
        for row in mixed {
            aside.extend_from_slice(self.out.get(row.gap..row.at)?);
        }
        let mut gap_to = out_start;
        for row in mixed {
            let pos = out_start + gaps + row.index * stride;
            aside.push(TAG_ARRAY | width_code(8));
            write_varint(aside, m as u64);
            for i in 0..m {
                let raw = match read_slot(&self.out, row.slots + i * row.width, row.width, row.at)?
                {
                    Slot::Int(v) => Pending::int(v).0,
                    // Its record moves with the rest of the row's gap.
                    Slot::Ref(t) => ((pos - (gap_to + (t - row.gap))) as u64) << 2 | SLOT_REL,
                    Slot::Special(s) => special_slot(s),
                };
                aside.extend_from_slice(&raw.to_le_bytes());
            }
            gap_to += row.at - row.gap;
        }
        Some(())
    }

    /// The row of `m` numbers at `r`, after the bytes from `gap` (the end
    /// of the previous row): an `f64` number array of `m` elements right
    /// there (`stride` bytes), or an array record of `m` slots that are
    /// inline integers or references to the number records that tile
    /// `gap..r` (which move with it, as they lie).
    fn matrix_row(
        &self,
        gap: usize,
        r: usize,
        m: usize,
        stride: usize,
        index: usize,
    ) -> Option<Row> {
        let (tag, count, slots) = container_header(&self.out, r)?;
        if count != m as u64 {
            return None;
        }
        if tag == f64_row_tag() {
            let end = r + stride;
            return (r == gap && slots + 8 * m == end).then_some(Row {
                gap,
                at: r,
                width: 0,
                slots,
                end,
                index,
            });
        }
        if !is_array(tag) {
            return None;
        }
        // The gap holds number records only (the row's floats, and its
        // integers too wide for its slots, in the order written).
        let mut next = gap;
        while next < r {
            next += number_record_len(*self.out.get(next)?)?;
        }
        let width = tag_width(tag);
        for i in 0..m {
            match read_slot(&self.out, slots + i * width, width, r)? {
                Slot::Int(_) => {}
                Slot::Ref(t) if t >= gap => {}
                _ => return None,
            }
        }
        (next == r).then_some(Row {
            gap,
            at: r,
            width,
            slots,
            end: slots.checked_add(m.checked_mul(width)?)?,
            index,
        })
    }
}
