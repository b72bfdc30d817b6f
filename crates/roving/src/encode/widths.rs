//! Choosing a container's slot width: the narrowest that holds every
//! reference, unless writing some integers as records makes it narrower.

use super::pending::{Pending, PendingKind};
use super::scalars::int_record_len;
use super::Encoder;
use crate::layout::*;

impl Encoder {
    /// Chooses the slot width of a container holding `slots[start..]`, writes records for integers too large to be
    /// inline at that width, and returns (width, position of the container).
    /// `size(w)` is the container record's size at width `w`.
    #[inline(always)]
    pub(super) fn write_container(
        &mut self,
        start: usize,
        size: impl Fn(usize) -> usize,
    ) -> (usize, usize) {
        let here = self.out.len();
        // Fast path: the narrowest width that holds every reference also
        // holds every inline integer, so it is the best choice. The width
        // a value needs depends only on its highest set bit, so the needs
        // are OR-ed together and measured once: a reference needs
        // `min(distance, target) << 2`, an integer `|v| << 3` (`!v` for a
        // negative `v`, so that `-32..=31` needs one byte).
        let (mut refs, mut ints) = (0u64, 0u64);
        let here4 = (here as u64) << 2;
        for p in &self.slots[start..] {
            let v = p.0;
            match v & 3 {
                // `v` is `t << 2`, so `(here - t) << 2` is `here4 - v`.
                SLOT_REL => refs |= (here4 - v).min(v),
                SLOT_INT => {
                    let i = (v as i64) >> 2;
                    ints |= ((i ^ (i >> 63)) as u64) << 3;
                }
                _ => {}
            }
        }
        let reference_width = need_width(refs);
        if need_width(ints) <= reference_width {
            return (reference_width, here);
        }
        self.write_wide_ints(start, reference_width, size)
    }

    /// [`Encoder::write_container`] when some integer is wider than the
    /// references need: compares each width against writing the wide
    /// integers as records instead.
    ///
    /// Only widths from `reference_width` (the narrowest that holds every reference
    /// now; writing integer records first only moves the container away)
    /// up to the first one that needs no integer record are candidates:
    /// wider ones need none either and are bigger.
    #[inline(never)]
    fn write_wide_ints(
        &mut self,
        start: usize,
        reference_width: usize,
        size: impl Fn(usize) -> usize,
    ) -> (usize, usize) {
        let here = self.out.len();
        let (extras, first_target) = int_records_by_width(&self.slots[start..], here);
        // The candidate of least total size (the narrowest of equals) is
        // the answer if every reference fits it, which is the common case:
        // checked alone first, before the width-by-width search.
        let mut pick = (usize::MAX, 8usize);
        for (&w, &extra) in WIDTHS.iter().zip(&extras) {
            // (The first width without integer records fits every
            // reference: the search ends there.)
            if w >= reference_width && consider(&mut pick, w, extra, size(w)) {
                break;
            }
        }
        let w = if self.width_fits(start, here, first_target, &extras, pick.1) {
            pick.1
        } else {
            self.fitting_width(start, here, first_target, &extras, reference_width, &size)
        };
        let (lo, hi) = inline_int_range(w);
        for i in start..self.slots.len() {
            if let PendingKind::Int(v) = self.slots[i].kind() {
                if v < lo || v > hi {
                    let pos = self.int_record(v);
                    self.slots[i] = Pending::record(pos);
                }
            }
        }
        (w, self.out.len())
    }

    /// Whether every reference of a container holding `slots[start..]`
    /// fits slots of `w` bytes when the integers too wide for them are
    /// written as records first (at `here` onwards, `extras` bytes in all
    /// for each width): references to earlier records (the earliest is
    /// `first_target`), and to each integer record (a middle one may be
    /// too far for a relative reference and too late for an absolute one
    /// even when the first one fits).
    #[inline(always)]
    fn width_fits(
        &self,
        start: usize,
        here: usize,
        first_target: usize,
        extras: &[usize; WIDTHS.len()],
        w: usize,
    ) -> bool {
        let extra = extras[usize::from(width_code(w))];
        let pos = here + extra;
        // No reference is longer than `pos - first_target`, nor one to an
        // integer record than `extra`: when both fit, all do.
        if need_width(((pos - first_target) as u64) << 2) <= w
            && need_width((extra as u64) << 2) <= w
        {
            return true;
        }
        let (lo, hi) = inline_int_range(w);
        let fits = |t: usize| reference_fits(t, pos, w);
        let mut at = here;
        self.slots[start..].iter().all(|p| match p.kind() {
            PendingKind::Record(t) => fits(t),
            PendingKind::Int(v) if v < lo || v > hi => {
                let rec = at;
                at += int_record_len(v);
                fits(rec)
            }
            _ => true,
        })
    }

    /// The width of least total size among those from `reference_width`
    /// whose references all fit ([`Self::width_fits`]), or the narrowest
    /// of them without integer records if it costs at most an eighth
    /// more ([`within_slack`]); 8 if none fits.
    #[cold]
    #[inline(never)]
    fn fitting_width(
        &self,
        start: usize,
        here: usize,
        first_target: usize,
        extras: &[usize; WIDTHS.len()],
        reference_width: usize,
        size: &impl Fn(usize) -> usize,
    ) -> usize {
        let mut best = (usize::MAX, 8usize);
        for (&w, &extra) in WIDTHS
            .iter()
            .zip(extras)
            .filter(|(&w, _)| w >= reference_width)
        {
            if self.width_fits(start, here, first_target, extras, w)
                && consider(&mut best, w, extra, size(w))
            {
                break;
            }
        }
        best.1
    }
}

/// One pass over `slots`: for every slot width, the bytes of the integer
/// records that the integers too wide to be inline at it need, and the
/// earliest record a slot refers to (`here` if none).
#[inline(always)]
pub(super) fn int_records_by_width(
    slots: &[Pending],
    here: usize,
) -> ([usize; WIDTHS.len()], usize) {
    let mut first_target = here;
    // By the code of the narrowest width holding each integer inline, the
    // bytes of their records.
    let mut by_need = [0usize; WIDTHS.len()];
    for p in slots {
        match p.kind() {
            PendingKind::Int(v) => {
                let (need, len) = int_need_and_record_len(v);
                by_need[need] += len;
            }
            PendingKind::Record(t) => first_target = first_target.min(t),
            _ => {}
        }
    }
    (extras_by_width(by_need), first_target)
}

/// One candidate of the width search, in increasing width: `w`, whose
/// integer records take `extra` bytes and container `size`, becomes
/// `pick` (total, width) if it is smaller than the pick so far, or if it
/// needs no integer record and is within the slack of the pick
/// ([`within_slack`]). Returns whether it needs no integer record, which
/// ends the search (wider widths are bigger).
#[inline(always)]
fn consider(pick: &mut (usize, usize), w: usize, extra: usize, size: usize) -> bool {
    let total = extra + size;
    if total < pick.0 || (extra == 0 && within_slack(total, pick.0)) {
        *pick = (total, w);
    }
    extra == 0
}

/// Whether a container and integer records of `total` bytes are near
/// enough to the least total `best` to be preferred when they have no
/// integer record: at most an eighth more (rounded down; `docs/FORMAT.md`
/// section 14). Integers inline are read and written faster than records,
/// and the next map of the shape then keeps its guessed width.
#[inline(always)]
pub(super) fn within_slack(total: usize, best: usize) -> bool {
    total <= best + best / 8
}

/// For an integer `v` of a slot: the code of the narrowest slot width
/// holding it inline (0 to 3, for 1 to 8 bytes: `v` within
/// [`inline_int_range`]) and the length of its integer record
/// ([`int_record_len`]), from the highest bit of `v` (`!v` if negative).
#[inline(always)]
pub(super) fn int_need_and_record_len(v: i64) -> (usize, usize) {
    let m = (v ^ (v >> 63)) as u64;
    let need = usize::from(width_code(need_width(m << 3)));
    let len = if m < 1 << 7 {
        2
    } else if m < 1 << 15 {
        3
    } else if m < 1 << 31 {
        5
    } else {
        9
    };
    debug_assert_eq!(len, int_record_len(v));
    debug_assert!({
        let inline = |w: usize| {
            let (lo, hi) = inline_int_range(w);
            (lo..=hi).contains(&v)
        };
        inline(WIDTHS[need]) && (need == 0 || !inline(WIDTHS[need - 1]))
    });
    (need, len)
}

/// For each slot width, the bytes of the records of the integers too
/// wide to be inline at it, from those bytes by the code of the width
/// each integer needs ([`int_need_and_record_len`]).
#[inline(always)]
pub(super) fn extras_by_width(by_need: [usize; WIDTHS.len()]) -> [usize; WIDTHS.len()] {
    let [_, n2, n4, n8] = by_need;
    [n2 + n4 + n8, n4 + n8, n8, 0]
}

/// Narrowest slot width (1, 2, 4, 8) whose bits hold `x`.
#[inline]
pub(super) fn need_width(x: u64) -> usize {
    if x < 1 << 8 {
        1
    } else if x < 1 << 16 {
        2
    } else if x < 1 << 32 {
        4
    } else {
        8
    }
}

/// Narrowest slot width holding a reference from `pos` to `target`.
#[inline]
pub(super) fn width_of_reference(target: usize, pos: usize) -> usize {
    need_width(((pos - target).min(target) as u64) << 2)
}

/// Whether `x` fits in `width` bytes.
#[inline]
fn fits_in(x: u64, width: usize) -> bool {
    width >= 8 || x < (1u64 << (width * 8))
}

/// Whether a reference from a container at `pos` to `target` fits `width` bytes.
#[inline]
fn reference_fits(target: usize, pos: usize, width: usize) -> bool {
    width_of_reference(target, pos) <= width
}

/// The slot of a reference from a container at `pos` to the record at
/// `target` in a slot of `width` bytes: relative if the distance fits,
/// else absolute.
#[inline]
pub(super) fn encode_reference(target: usize, pos: usize, width: usize) -> u64 {
    let d = (pos - target) as u64;
    if fits_in(d << 2, width) {
        (d << 2) | SLOT_REL
    } else {
        ((target as u64) << 2) | SLOT_ABS
    }
}
