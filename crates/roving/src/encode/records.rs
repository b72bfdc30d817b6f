//! Writing container records: the tag, the head varint and the slots,
//! into reserved capacity.

use super::pending::Pending;
use super::widths::{int_records_by_width, need_width, within_slack};
use super::Encoder;
use crate::layout::*;

impl Encoder {
    /// [`Encoder::write_container`] and [`Encoder::write_record`] in one
    /// pass over the slots, for a guessed width: writes the record at
    /// `width` while measuring the width the slots need, and keeps it
    /// only if `write_container` would choose `width` too: the width the
    /// references need, when no integer needs more (its fast path), or
    /// the width the widest integer needs, when writing the integers too
    /// wide for each narrower width as records saves at most an eighth
    /// (`write_wide_ints`' choice; `size(w)` is the record's size at
    /// width `w`, as given to `write_container`).
    /// Returns whether the record was written (at the end of the output;
    /// else nothing was).
    #[inline(always)]
    pub(super) fn write_record_as(
        &mut self,
        start: usize,
        tag: u8,
        head: u64,
        width: usize,
        size: impl Fn(usize) -> usize,
    ) -> bool {
        #[inline(always)]
        fn fused<const W: usize>(
            out: &mut Vec<u8>,
            tag: u8,
            head: u64,
            slots: &[Pending],
            size: impl Fn(usize) -> usize,
        ) -> bool {
            let pos = out.len();
            match put_record::<W>(out, tag, head, slots) {
                Some((refs, ints)) if need_width(refs) == W && need_width(ints) <= W => true,
                Some((refs, ints))
                    if need_width(ints) == W
                        && need_width(refs) < W
                        && narrower_widths_lose(slots, need_width(refs), W, size) =>
                {
                    true
                }
                Some(_) => {
                    out.truncate(pos);
                    false
                }
                None => false,
            }
        }
        let (out, slots) = (&mut self.out, &self.slots[start..]);
        match width {
            1 => fused::<1>(out, tag, head, slots, size),
            2 => fused::<2>(out, tag, head, slots, size),
            4 => fused::<4>(out, tag, head, slots, size),
            8 => fused::<8>(out, tag, head, slots, size),
            _ => false,
        }
    }

    /// Writes the record of a container holding `slots[start..]` at the
    /// end of the output: `tag` with the code of `width`, the varint
    /// `head`, then the slots (`pos` is where the record starts, the end
    /// of the output).
    #[inline(always)]
    pub(super) fn write_record(
        &mut self,
        start: usize,
        tag: u8,
        head: u64,
        width: usize,
        pos: usize,
    ) {
        debug_assert_eq!(pos, self.out.len());
        let (out, slots) = (&mut self.out, &self.slots[start..]);
        // The widths the slots need are not used here (the caller chose
        // `width`); unused, their computation is optimized away.
        let _ = match width {
            1 => put_record::<1>(out, tag, head, slots),
            2 => put_record::<2>(out, tag, head, slots),
            4 => put_record::<4>(out, tag, head, slots),
            _ => put_record::<8>(out, tag, head, slots),
        };
    }
}

/// Whether `w` (the width the widest integer needs), whose container has
/// no integer record, costs at most an eighth more than each width from
/// `from` (the width the references need) up to `w`, exclusive, with its
/// container and integer records ([`within_slack`]): `write_wide_ints`
/// then chooses `w`. `size(w)` is the container record's size at width `w`.
#[inline(never)]
fn narrower_widths_lose(
    slots: &[Pending],
    from: usize,
    w: usize,
    size: impl Fn(usize) -> usize,
) -> bool {
    let (extras, _) = int_records_by_width(slots, 0);
    // Within the slack of every narrower width's cost, feasible or not,
    // `w` is within that of the least feasible one: the search takes it.
    WIDTHS
        .iter()
        .zip(extras)
        .filter(|&(&n, _)| n >= from && n < w)
        .all(|(&n, extra)| within_slack(size(w), extra + size(n)))
}

/// Writes a container record at the end of `out` at slot width `W`: the
/// `tag` with `W`'s code, the varint `head`, then `slots` (a reference
/// `t << 2` relative, `(pos - t) << 2`, if that fits, else absolute).
/// Returns the needs of the slots as `write_container` measures them
/// (references' and integers', to pass to `need_width`), or `None` if
/// nothing was written (unreachable: the capacity is reserved first).
#[inline(always)]
fn put_record<const W: usize>(
    out: &mut Vec<u8>,
    tag: u8,
    head: u64,
    slots: &[Pending],
) -> Option<(u64, u64)> {
    let pos = out.len();
    let pos4 = (pos as u64) << 2;
    let len = 1 + 10 + slots.len() * W;
    out.reserve(len);
    let spare = out.spare_capacity_mut();
    let n = put_head(spare, tag | width_code(W), head)?;
    let dst = &mut spare[n..];
    let (mut refs, mut ints) = (0u64, 0u64);
    let mut written = 0;
    for (d, p) in dst.chunks_exact_mut(W).zip(slots) {
        let v = p.0;
        // `v` is `t << 2` for a reference, so `(pos - t) << 2` is `pos4 - v`.
        let rel = pos4.wrapping_sub(v);
        let raw = match v & 3 {
            SLOT_REL => {
                refs |= rel.min(v);
                if W >= 8 || rel < 1 << (8 * W) {
                    rel
                } else {
                    v | SLOT_ABS
                }
            }
            SLOT_INT => {
                let i = (v as i64) >> 2;
                ints |= ((i ^ (i >> 63)) as u64) << 3;
                v
            }
            _ => v,
        };
        if let Some(d) = d.first_chunk_mut::<W>() {
            if let Some(b) = raw.to_le_bytes().first_chunk::<W>() {
                *d = b.map(std::mem::MaybeUninit::new);
                written += W;
            }
        }
    }
    let new_len = pos + n + written;
    if written != slots.len() * W || new_len > pos + len {
        return None; // unreachable
    }
    // SAFETY: the `n` head bytes (tag and varint, `put_head`) and
    // `written` slot bytes after the old length were all written above,
    // within the `len` bytes of capacity reserved (checked).
    unsafe { out.set_len(new_len) };
    Some((refs, ints))
}

/// Writes a container record's head into spare capacity: the `tag` byte,
/// then `head` as a varint (at most 10 bytes). Returns the bytes written,
/// or `None` if `spare` is shorter than 11 bytes.
#[inline(always)]
fn put_head(spare: &mut [std::mem::MaybeUninit<u8>], tag: u8, head: u64) -> Option<usize> {
    let (t, rest) = spare.split_first_mut()?;
    let rest = rest.get_mut(..10)?;
    t.write(tag);
    let mut n = 0;
    let mut v = head;
    for d in rest.iter_mut() {
        n += 1;
        if v < 0x80 {
            d.write(v as u8);
            break;
        }
        d.write(v as u8 | 0x80);
        v >>= 7;
    }
    Some(1 + n)
}
