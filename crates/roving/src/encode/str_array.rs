//! Arrays of new, distinct strings written as one string array record
//! (`22`, format version 2) instead of a string record each and an array
//! of slots (`docs/FORMAT.md` section 14).

use super::pending::Pending;
use super::widths::width_of_reference;
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
            || self.marked.load(std::sync::atomic::Ordering::Relaxed) >= out_start
        {
            return None;
        }
        let here = self.out.len();
        let mut lens = Vec::with_capacity(n);
        let (mut at, mut width) = (out_start, 1);
        for &p in slots {
            if p != Pending::record(at) {
                return None;
            }
            let (data, len) = string_record(&self.out, at)?;
            width = width.max(width_of_reference(at, here));
            lens.push(len);
            at = data + len;
        }
        if at != here {
            return None;
        }
        let data_len: usize = lens.iter().sum();
        let slot_form = (here - out_start) + 1 + varint_len(n as u64) + n * width;
        if str_array_size(&lens, data_len) >= slot_form {
            return None;
        }
        // Out of the string table (reading each record before its bytes
        // are overwritten), and the strings' bytes moved together.
        let (mut at, mut dst) = (out_start, out_start);
        for &len in &lens {
            self.strings.remove(&self.out, at);
            let (data, _) = string_record(&self.out, at)?;
            self.out.copy_within(data..data + len, dst);
            (at, dst) = (data + len, dst + len);
        }
        self.out.truncate(out_start + data_len);
        let mut head = Vec::with_capacity(here - out_start - data_len);
        write_str_array_head(&mut head, &lens, data_len);
        self.out.splice(out_start..out_start, head);
        self.require_version(VERSION_2);
        Some(Pending::record(out_start))
    }
}

/// The position and length of the bytes of the string record at `pos`.
fn string_record(out: &[u8], pos: usize) -> Option<(usize, usize)> {
    let b = str_record(out, pos)?;
    Some((b.as_ptr() as usize - out.as_ptr() as usize, b.len()))
}
