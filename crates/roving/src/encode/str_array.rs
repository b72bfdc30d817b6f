//! Arrays of new, distinct strings written as one string array record
//! (`22`, format version 2) instead of a string record each and an array
//! of slots (`docs/FORMAT.md` section 14).

use super::pending::Pending;
use super::widths::need_width;
use super::Encoder;
use crate::layout::*;

/// Fewest elements of an array written as a string array record. From 4
/// the record can be smaller than the slot form, but it saves only a byte
/// or two per string, and each string of it that the document holds again
/// later gets a record of its own: on `1000people.json` the one array of
/// 7 tags packed at 4 cost 39 bytes in all, its words recurring later. At
/// 8, 16 or 32 that file is as before and the contacts of seed 003 (two
/// arrays of 150 and 99,999 strings) pack the same.
pub(super) const STR_ARRAY_MIN: usize = 8;

impl Encoder {
    /// Rewrites the array ending now, whose slots start at `slots_start`
    /// and whose records start at `out_start` in the output, as a string
    /// array record, if that is smaller and possible: every element is a
    /// string record written inside the array (a string the document did
    /// not hold before), in order, with nothing else written in between
    /// (so no two are equal, and no other value refers to them), and no
    /// mark was taken of one. The strings are then taken back out of the
    /// string table, so that a later equal string gets a record of its
    /// own. Returns the record's position.
    pub(super) fn try_str_array(
        &mut self,
        slots_start: usize,
        out_start: usize,
    ) -> Option<Pending> {
        let slots = self.slots.get(slots_start..)?;
        let n = slots.len();
        if n < STR_ARRAY_MIN
            || slots[0] != Pending::record(out_start)
            || self.marked.load(std::sync::atomic::Ordering::Relaxed) > out_start
        {
            return None;
        }
        let here = self.out.len();
        let mut lens = Vec::with_capacity(n);
        // The slot form's width, as `write_container` finds it: the
        // highest bit of every reference's need, OR-ed.
        let (mut at, mut refs) = (out_start, 0usize);
        for &p in slots {
            if p != Pending::record(at) {
                return None;
            }
            let (data, len) = string_record(&self.out, at)?;
            refs |= (here - at).min(at);
            lens.push(len);
            at = data + len;
        }
        if at != here {
            return None;
        }
        let width = need_width((refs as u64) << 2);
        let data_len: usize = lens.iter().sum();
        let slot_form = (here - out_start) + 1 + varint_len(n as u64) + n * width;
        let size = str_array_size(&lens, data_len);
        if size >= slot_form {
            return None;
        }
        // Out of the string table (reading each record before its bytes
        // are overwritten; most of the table at once in one pass), and the
        // strings' bytes moved together.
        let at_once = 2 * n >= self.strings.len();
        if at_once {
            self.strings.retain_before(out_start, n);
        }
        let (mut at, mut dst) = (out_start, out_start);
        for &len in &lens {
            if !at_once {
                self.strings.remove(&self.out, at);
            }
            // A short string record's header is its tag.
            let data = if len <= SHORT_STR_MAX {
                at + 1
            } else {
                string_record(&self.out, at)?.0
            };
            self.out.copy_within(data..data + len, dst);
            (at, dst) = (data + len, dst + len);
        }
        // The head (tag to ends) goes before the data, which moves up.
        let head = size - data_len;
        self.out.truncate(out_start + data_len);
        self.out.resize(out_start + size, 0);
        self.out
            .copy_within(out_start..out_start + data_len, out_start + head);
        let mut h = Vec::with_capacity(head);
        write_str_array_head(&mut h, &lens, data_len);
        self.out[out_start..out_start + head].copy_from_slice(&h);
        self.require_version(VERSION_2);
        Some(Pending::record(out_start))
    }
}

/// The position and length of the bytes of the string record at `pos`.
#[inline(always)]
fn string_record(out: &[u8], pos: usize) -> Option<(usize, usize)> {
    let tag = *out.get(pos)?;
    if is_short_str(tag) {
        return Some((pos + 1, short_str_len(tag)));
    }
    let b = str_record(out, pos)?;
    Some((b.as_ptr() as usize - out.as_ptr() as usize, b.len()))
}
