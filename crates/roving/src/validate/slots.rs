//! The hot loop of the validator: checking a container's value slots
//! against the bitmap of record starts.

use super::*;

/// Whether the value slots in `buf[p..end]` (in bounds) of the container at
/// `base` are valid, given the bitmap of record starts before `base`.
#[inline(always)]
pub(super) fn slots_ok<const TAGS: bool>(
    buf: &[u8],
    starts: &[u64],
    p: usize,
    end: usize,
    w: usize,
    base: usize,
) -> bool {
    let bytes = &buf[p..end];
    match w {
        1 => value_slots_ok::<1, TAGS>(buf, starts, bytes, base),
        2 => value_slots_ok::<2, TAGS>(buf, starts, bytes, base),
        4 => value_slots_ok::<4, TAGS>(buf, starts, bytes, base),
        _ => value_slots_ok::<8, TAGS>(buf, starts, bytes, base),
    }
}
/// The hot loop: whether all value slots of width `W` in `bytes` are valid.
///
/// With `TAGS` (the full checker's bitmap, a bit per record start) a
/// reference must land on a record start whose tag is a value record's.
/// Without (the fast modes' bitmap, a bit per *value* record start, see
/// [`Validator::value_only`]) the bit alone says so: one load less per slot.
#[inline(always)]
fn value_slots_ok<const W: usize, const TAGS: bool>(
    buf: &[u8],
    starts: &[u64],
    bytes: &[u8],
    base: usize,
) -> bool {
    // Targets are below `base`: their tags are in `head`, their bits in `starts`.
    let Some(head) = buf.get(..base) else {
        return false;
    };
    if starts.len() <= base / 64 {
        return false;
    }
    let ok = |raw: u64| {
        if raw & 1 != 0 {
            // Small integer, or special constant (kind 11) below SPECIAL_COUNT.
            return raw & 2 == 0 || (raw >> 2) < SPECIAL_COUNT;
        }
        let t = ref_target(raw, base);
        if t >= head.len() {
            return false;
        }
        // SAFETY: t < base and starts.len() > base / 64 (checked above).
        let word = unsafe { *starts.get_unchecked(t / 64) };
        word & (1 << (t % 64)) != 0 && (!TAGS || is_value_tag(head[t]))
    };
    for c in bytes.chunks_exact(W) {
        if !ok(read_uint_fixed::<W>(c)) {
            return false;
        }
    }
    true
}
