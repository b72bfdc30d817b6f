//! Slots: the 1-, 2-, 4- or 8-byte cells of containers, holding a small
//! integer, a special constant or a reference to an earlier record.

use super::varint::read_uint;

/// Low two bits of a slot that is a backward reference relative to its container.
pub const SLOT_REL: u64 = 0b00;
/// Low two bits of a slot that is an absolute reference (offset from the document start).
pub const SLOT_ABS: u64 = 0b10;
/// Low two bits of a slot that holds a small signed integer.
pub const SLOT_INT: u64 = 0b01;
/// Low two bits of a slot that holds a special constant.
pub const SLOT_SPECIAL: u64 = 0b11;

/// Special constant: null.
pub const SPECIAL_NULL: u64 = 0;
/// Special constant: false.
pub const SPECIAL_FALSE: u64 = 1;
/// Special constant: true.
pub const SPECIAL_TRUE: u64 = 2;
/// Special constant: the empty string.
pub const SPECIAL_EMPTY_STR: u64 = 3;
/// Special constant: the empty array.
pub const SPECIAL_EMPTY_ARRAY: u64 = 4;
/// Special constant: the empty map.
pub const SPECIAL_EMPTY_MAP: u64 = 5;
/// Number of defined special constants.
pub const SPECIAL_COUNT: u64 = 6;

/// Smallest and largest small integer a slot of `width` bytes holds inline.
#[inline]
pub const fn inline_int_range(width: usize) -> (i64, i64) {
    let bits = width as u32 * 8 - 2;
    let max = (1i64 << (bits - 1)) - 1;
    (-max - 1, max)
}

/// The raw slot holding special constant `s`.
#[inline(always)]
pub const fn special_slot(s: u64) -> u64 {
    s << 2 | SLOT_SPECIAL
}

/// Resolved target of a slot: an immediate value or a record position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A small integer held in the slot.
    Int(i64),
    /// A special constant (`SPECIAL_*`).
    Special(u64),
    /// A reference to the record at this position.
    Ref(usize),
}

/// The target of a reference slot `raw` (kind `00` or `10`) of a
/// container at `base`: relative `base - x` (`x = 0` or `x > base` wraps
/// to `base` or above) or absolute `x`. Callers reject targets `>= base`.
#[inline(always)]
pub(crate) fn ref_target(raw: u64, base: usize) -> usize {
    let x = (raw >> 2) as usize;
    if raw & 2 == 0 {
        base.wrapping_sub(x)
    } else {
        x
    }
}

/// Decodes a raw slot of `width` bytes of a container whose record starts at `base`.
/// Returns `None` for references that do not point strictly before `base`.
#[inline(always)]
pub(crate) fn decode_slot(raw: u64, width: usize, base: usize) -> Option<Slot> {
    // References first (the common case on lookups), without a jump table:
    // a relative distance `d` gives `base - d`, which is below `base` exactly
    // when `1 <= d <= base` (otherwise it wraps around), and an absolute
    // target must be below `base` too: one comparison for both kinds.
    if raw & 1 == 0 {
        let t = ref_target(raw, base);
        return if t < base { Some(Slot::Ref(t)) } else { None };
    }
    if raw & 2 == 0 {
        let sh = 64 - width as u32 * 8;
        Some(Slot::Int(((raw as i64) << sh) >> (sh + 2)))
    } else {
        Some(Slot::Special(raw >> 2))
    }
}

/// Reads the slot at `pos` and decodes it.
#[inline(always)]
pub(crate) fn read_slot(buf: &[u8], pos: usize, width: usize, base: usize) -> Option<Slot> {
    decode_slot(read_uint(buf, pos, width)?, width, base)
}

/// Position of slot `i` of `width` bytes in a slot array starting at `first`.
#[inline(always)]
pub(crate) const fn slot_pos(first: usize, i: usize, width: usize) -> usize {
    first + i * width
}

/// The position of the shape that the shape reference `r` (the varint after
/// the tag) of the map record at `pos` denotes, if it lies before the map:
/// `r >> 1` from the document start if `r` is odd, else that distance back
/// from `pos`.
#[inline(always)]
pub(crate) fn shape_target(r: u64, pos: usize) -> Option<usize> {
    let x = usize::try_from(r >> 1).ok()?;
    // As for slots: a relative distance `x` gives `pos - x`, which is below
    // `pos` exactly when `1 <= x <= pos` (a larger one wraps to `pos` or
    // above, up to `usize::MAX`).
    let shape = if r & 1 == 1 { x } else { pos.wrapping_sub(x) };
    (shape < pos).then_some(shape)
}

#[cfg(test)]
mod tests {
    use super::super::tags::WIDTHS;
    use super::*;

    /// `decode_slot` as FORMAT.md section 5 states it.
    fn reference_decode(raw: u64, width: usize, base: usize) -> Option<Slot> {
        let p = raw >> 2;
        match raw & 3 {
            SLOT_INT => {
                let sh = 64 - width as u32 * 8;
                Some(Slot::Int(((raw as i64) << sh) >> (sh + 2)))
            }
            SLOT_SPECIAL => Some(Slot::Special(p)),
            SLOT_REL => (p >= 1 && p <= base as u64).then(|| Slot::Ref(base - p as usize)),
            _ => (p < base as u64).then_some(Slot::Ref(p as usize)),
        }
    }

    #[test]
    fn decode_slot_matches_the_spec() {
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        for n in 0..200_000u64 {
            let x = rng.next();
            let width = WIDTHS[(n & 3) as usize];
            let raw = x & (u64::MAX >> (64 - 8 * width as u32));
            // Small and large payloads, bases near the payload.
            let raw = if n % 5 == 0 { raw & 0x3FF } else { raw };
            let base = match n % 4 {
                0 => (raw >> 2) as usize,
                1 => ((raw >> 2) as usize).wrapping_add(1),
                2 => (x >> 40) as usize,
                _ => usize::MAX >> 1,
            };
            assert_eq!(
                decode_slot(raw, width, base),
                reference_decode(raw, width, base),
                "raw {raw:#x} width {width} base {base}"
            );
        }
    }
}
