//! The fast path: the common valid records, taken with few branches and
//! no bounds checks inside a fixed window of [`WINDOW`] bytes (AVX2 where
//! the CPU has it). Anything else is left to the full checker.

#[cfg(target_arch = "x86_64")]
use super::ascii::ascii_prefix_avx2;
use super::ascii::{ascii_prefix, is_ascii_long};
use super::*;

/// Runs the fast path from `pos` as long as it accepts records; returns
/// where it stopped: at a record it leaves to [`Validator::record`], or
/// within the last [`WINDOW`] bytes. Marks the records it accepts.
///
/// With `Some(avx2)` the same code compiled for AVX2 and BMI2 runs: a
/// short string's 64 bytes take two 32-byte loads instead of four of 16, and
/// shifts by a variable need no `cl` register.
#[inline(never)]
pub(super) fn fast_run(
    buf: &[u8],
    starts: &mut [u64],
    shapes: &mut Shapes,
    doc_len: usize,
    mut pos: usize,
    avx2: Option<Avx2>,
) -> usize {
    loop {
        pos = fast_records(buf, starts, &shapes.cache, pos, avx2);
        // Stopped at a record the loop does not take: a shape record of
        // the common kind is taken here (outside the loop, so that it
        // keeps its registers). Not marked: a shape is not a value record.
        let Some(win) = buf.get(pos..pos + WINDOW) else {
            return pos;
        };
        let Ok(win) = <&[u8; WINDOW]>::try_from(win) else {
            return pos;
        };
        if !is_shape(win[0]) || starts.len() <= buf.len() / 64 {
            return pos;
        }
        match fast_shape(buf, starts, shapes, doc_len, pos, win) {
            Some(end) => pos = end,
            None => return pos,
        }
    }
}

/// The records from `pos` that [`fast_record`] takes: returns where it
/// stopped (see [`fast_run`]).
#[inline(always)]
fn fast_records(
    buf: &[u8],
    starts: &mut [u64],
    shapes: &[(usize, usize); SHAPE_CACHE],
    pos: usize,
    avx2: Option<Avx2>,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Some(Avx2(())) = avx2 {
        // SAFETY: the CPU has AVX2 and BMI2 (an `Avx2` exists).
        return unsafe { fast_run_avx2(buf, starts, shapes, pos) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = avx2;
    // SAFETY: `AVX2` is false.
    unsafe { fast_run_with::<false>(buf, starts, shapes, pos) }
}

/// Whether the CPU has AVX2 and BMI2: [`AVX2_YES`], [`AVX2_NO`], or 0 if
/// not asked yet (see [`Avx2::detect`]).
static AVX2_BMI2: AtomicU8 = AtomicU8::new(0);
/// [`AVX2_BMI2`]: the CPU has both.
const AVX2_YES: u8 = 1;
/// [`AVX2_BMI2`]: the CPU lacks one.
const AVX2_NO: u8 = 2;

/// Proof that the CPU has AVX2 and BMI2: made only by [`Avx2::detect`].
#[derive(Clone, Copy)]
pub(super) struct Avx2(());

impl Avx2 {
    /// `Some` if the CPU has AVX2 and BMI2 (detected at run time, the
    /// answer kept in [`AVX2_BMI2`]: one load per validation).
    #[inline(always)]
    pub(super) fn detect() -> Option<Avx2> {
        match AVX2_BMI2.load(Ordering::Relaxed) {
            AVX2_YES => Some(Avx2(())),
            AVX2_NO => None,
            _ => Self::detect_first(),
        }
    }

    /// [`Self::detect`] the first time: asks the CPU, keeps the answer.
    #[cold]
    #[inline(never)]
    fn detect_first() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("bmi2") {
            AVX2_BMI2.store(AVX2_YES, Ordering::Relaxed);
            return Some(Avx2(()));
        }
        AVX2_BMI2.store(AVX2_NO, Ordering::Relaxed);
        None
    }
}

/// [`fast_run_with`] compiled for AVX2 and BMI2.
///
/// # Safety
/// The CPU must support AVX2 and BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2")]
unsafe fn fast_run_avx2(
    buf: &[u8],
    starts: &mut [u64],
    shapes: &[(usize, usize); SHAPE_CACHE],
    pos: usize,
) -> usize {
    // SAFETY: the CPU supports AVX2 (the caller's contract).
    unsafe { fast_run_with::<true>(buf, starts, shapes, pos) }
}

/// The loop of [`fast_run`]: the records [`fast_record`] takes.
///
/// # Safety
/// If `AVX2`, the CPU must support AVX2.
#[inline(always)]
unsafe fn fast_run_with<const AVX2: bool>(
    buf: &[u8],
    starts: &mut [u64],
    shapes: &[(usize, usize); SHAPE_CACHE],
    mut pos: usize,
) -> usize {
    if starts.len() <= buf.len() / 64 {
        return pos;
    }
    // Records that start at or before `last` have WINDOW bytes in `buf`.
    let Some(last) = buf.len().checked_sub(WINDOW) else {
        return pos;
    };
    while pos <= last {
        // SAFETY: pos + WINDOW <= buf.len() (pos <= last), so the WINDOW
        // bytes at pos are within `buf` (one comparison per record instead
        // of the two of a checked sub-slice).
        let win = unsafe { &*buf.as_ptr().add(pos).cast::<[u8; WINDOW]>() };
        // SAFETY: if AVX2, the CPU supports it (this function's contract).
        let Some(end) = (unsafe { fast_record::<AVX2>(buf, starts, shapes, pos, win) }) else {
            break;
        };
        // SAFETY: pos < buf.len(), and starts.len() > buf.len() / 64 (checked above).
        unsafe { *starts.get_unchecked_mut(pos / 64) |= 1 << (pos % 64) };
        pos = end;
    }
    pos
}

/// The end of the shape record at `pos` (its first [`WINDOW`] bytes are
/// `win`) if it is valid and of the common kind, which it then notes in
/// `shapes` (as [`Validator::checked_shape`] does); else `None`, to have
/// [`Validator::record`] check it in full. The common kind: at most
/// [`SHAPE_LINEAR_MAX`] keys (so no index, and all key slots within
/// `win`), each a short string (or the empty-string constant), distinct,
/// among the first [`FEW_SHAPES`] shapes of a document of at least 8 bytes
/// per key. `starts` marks the value records before `pos`, which include
/// all short strings (`fast_run_with` checked it has `buf.len() / 64 + 1` words).
#[inline(never)]
fn fast_shape(
    buf: &[u8],
    starts: &[u64],
    shapes: &mut Shapes,
    doc_len: usize,
    pos: usize,
    win: &[u8; WINDOW],
) -> Option<usize> {
    let tag = win[0];
    let count = win[1] as usize;
    if !is_shape(tag) || count > SHAPE_LINEAR_MAX || shapes.n >= FEW_SHAPES || count > doc_len / 8 {
        return None;
    }
    let ok = match tag_width_code(tag) {
        0 => fast_shape_keys::<1>(buf, starts, pos, win, count),
        1 => fast_shape_keys::<2>(buf, starts, pos, win, count),
        2 => fast_shape_keys::<4>(buf, starts, pos, win, count),
        _ => fast_shape_keys::<8>(buf, starts, pos, win, count),
    };
    if !ok {
        return None;
    }
    if let Some(e) = shapes.few.get_mut(shapes.n) {
        *e = (pos, count);
    }
    shapes.n += 1;
    // As `Validator::cache_shape` (count <= doc_len / 8, checked above).
    let h = shape_slot(pos);
    if shapes.cache[h].0 != pos {
        shapes.cache[h ^ 1] = shapes.cache[h];
        shapes.cache[h] = (pos, count);
    }
    Some(pos + 2 + count * tag_width(tag))
}

/// Whether the `count` (at most [`SHAPE_LINEAR_MAX`]) key slots of width
/// `W` of the shape at `pos` (whose first [`WINDOW`] bytes are `win`, so
/// all its key slots) each refer to a short string record (or are the
/// empty-string constant), and the keys are distinct. Only keys of a
/// length already seen are compared (see [`same_key_before`]).
#[inline(always)]
fn fast_shape_keys<const W: usize>(
    buf: &[u8],
    starts: &[u64],
    pos: usize,
    win: &[u8; WINDOW],
    count: usize,
) -> bool {
    let Some(head) = buf.get(..pos) else {
        return false;
    };
    if starts.len() <= pos / 64 {
        return false;
    }
    // (Start, length) of each key's bytes, and a bit per length seen.
    let mut keys = [(0usize, 0usize); SHAPE_LINEAR_MAX];
    let mut lengths = 0u64;
    let slots = &win[2..2 + SHAPE_LINEAR_MAX * W];
    for (i, c) in slots.chunks_exact(W).take(count).enumerate() {
        let raw = read_uint_fixed::<W>(c);
        let key = if raw & 1 != 0 {
            if raw != special_slot(SPECIAL_EMPTY_STR) {
                return false;
            }
            (0, 0)
        } else {
            let t = ref_target(raw, pos);
            if t >= head.len() {
                return false;
            }
            // SAFETY: t < pos and starts.len() > pos / 64 (checked above).
            let word = unsafe { *starts.get_unchecked(t / 64) };
            let tag = head[t];
            if word & (1 << (t % 64)) == 0 || !is_short_str(tag) {
                return false;
            }
            (t + 1, short_str_len(tag))
        };
        if lengths & 1 << key.1 != 0 && same_key_before(head, &keys[..i.min(SHAPE_LINEAR_MAX)], key)
        {
            return false;
        }
        lengths |= 1 << key.1;
        if let Some(k) = keys.get_mut(i) {
            *k = key;
        }
    }
    true
}

/// Whether one of `keys` ((start, length) of key bytes within `head`) has
/// the same bytes as `key`.
#[cold]
#[inline(never)]
fn same_key_before(head: &[u8], keys: &[(usize, usize)], key: (usize, usize)) -> bool {
    let bytes = |(s, l): (usize, usize)| head.get(s..s + l);
    // Keys of 1 to 8 bytes with 8 bytes in `head`: one word each.
    let mask = match key.1 {
        1..=8 => Some(u64::MAX >> (64 - 8 * key.1)),
        _ => None,
    };
    let word = |s: usize| {
        let w: [u8; 8] = head.get(s..s + 8)?.try_into().ok()?;
        Some(u64::from_le_bytes(w) & mask?)
    };
    let short = word(key.0);
    keys.iter().any(|&k| {
        k.1 == key.1
            && match (short, word(k.0)) {
                (Some(a), Some(b)) => a == b,
                _ => bytes(k) == bytes(key),
            }
    })
}

/// The record at `pos` (whose first [`WINDOW`] bytes are `win`) if it is
/// valid and of a common kind: short and long strings of ASCII, arrays and
/// maps whose counts or shape references take one to three varint bytes and
/// whose shape is in `shapes`, decimal floats, number arrays of binary
/// elements, fixed-size integers and floats, timestamps. Returns its end,
/// or `None`
/// to have [`Validator::record`] check it in full.
///
/// # Safety
/// If `AVX2`, the CPU must support AVX2.
#[inline(always)]
unsafe fn fast_record<const AVX2: bool>(
    buf: &[u8],
    starts: &[u64],
    shapes: &[(usize, usize); SHAPE_CACHE],
    pos: usize,
    win: &[u8; WINDOW],
) -> Option<usize> {
    let tag = win[0];
    // Short strings are most records.
    if is_short_str(tag) {
        let len = short_str_len(tag);
        let s: &[u8; 64] = win[1..65].try_into().ok()?;
        #[cfg(target_arch = "x86_64")]
        if AVX2 {
            // SAFETY: the CPU supports AVX2 (this function's contract).
            return unsafe { ascii_prefix_avx2(s, len) }.then_some(pos + 1 + len);
        }
        return ascii_prefix(s, len).then_some(pos + 1 + len);
    }
    if tag == TAG_F_DEC {
        return ((win[1] as i8).unsigned_abs() <= F_DEC_MAX_EXP as u8)
            .then_some(pos + 1 + F_DEC_PAYLOAD);
    }
    // A varint of one to three bytes after the tag, canonical (its last
    // byte not zero): (value, its length).
    let (v, vlen) = if win[1] < 0x80 {
        (win[1] as usize, 1)
    } else if win[2].wrapping_sub(1) < 0x7F {
        ((win[1] & 0x7F) as usize | (win[2] as usize) << 7, 2)
    } else if win[2] >= 0x80 && win[3].wrapping_sub(1) < 0x7F {
        let v = (win[1] & 0x7F) as usize | ((win[2] & 0x7F) as usize) << 7;
        (v | (win[3] as usize) << 14, 3)
    } else {
        return fast_fixed(tag, win, pos);
    };
    let q = pos + 1 + vlen;
    let w = tag_width(tag);
    match tag & !3 {
        TAG_MAP => {
            // A shape reference that does not lead before the map is the
            // full checker's to reject (decoded as the reader decodes it: a
            // wrapped relative distance would otherwise reach `usize::MAX`,
            // an empty entry of the shape cache, read as 0 keys).
            let s = shape_target(v as u64, pos)?;
            let h = shape_slot(s);
            let count = if shapes[h].0 == s {
                shapes[h].1
            } else if shapes[h ^ 1].0 == s {
                shapes[h ^ 1].1
            } else {
                return None;
            };
            // No overflow: count <= buf.len() / 8 (see `shape_count`) and w <= 8.
            let end = q + count * w;
            (end <= buf.len() && slots_ok::<false>(buf, starts, q, end, w, pos)).then_some(end)
        }
        TAG_ARRAY => {
            let end = q + v * w;
            (end <= buf.len() && slots_ok::<false>(buf, starts, q, end, w, pos)).then_some(end)
        }
        _ if tag == TAG_STR => {
            let end = q + v;
            is_ascii_long(buf.get(q..end)?).then_some(end)
        }
        _ if tag == TAG_BYTES => {
            let end = q + v;
            (end <= buf.len()).then_some(end)
        }
        // A number array of a binary element type (`30`-`39`, a version
        // 2 record): any bytes are valid elements. (`3A` has an exponent
        // to check: the full checker's.)
        _ if is_num_array(tag) => {
            let e = ElemType::from_code(tag - TAG_NUM_ARRAY)?;
            if !allows_v2(buf) {
                return None;
            }
            // No overflow: v < 2^21 (three varint bytes) and a size is at most 8.
            let end = q + v * e.size();
            (end <= buf.len()).then_some(end)
        }
        // Every other kind is the full checker's, whose dispatch is an
        // exhaustive match on `RecordKind`: a new kind needs nothing here.
        _ => fast_fixed(tag, win, pos),
    }
}

/// The end of the record at `pos` (its first [`WINDOW`] bytes are `win`)
/// if it is a fixed-size integer or binary float (`01`-`05`, `08`, `09`:
/// any payload bytes are valid, and the payload is within `win`) or a
/// valid timestamp, else `None` (left to the full checker).
#[inline(always)]
fn fast_fixed(tag: u8, win: &[u8; WINDOW], pos: usize) -> Option<usize> {
    use RecordKind::*;
    match RecordKind::of(tag) {
        kind @ (I8 | I16 | I32 | I64 | U64 | F32 | F64) => Some(pos + 1 + kind.fixed_payload()?),
        _ => fast_timestamp(tag, win, pos),
    }
}

/// The end of the record at `pos` (its first [`WINDOW`] bytes are `win`)
/// if it is a valid timestamp, else `None` (left to the full checker).
#[inline(always)]
fn fast_timestamp(tag: u8, win: &[u8; WINDOW], pos: usize) -> Option<usize> {
    if tag | 1 != TAG_TIMESTAMP_OFFSET {
        return None;
    }
    // Seconds (8 bytes), nanos (4), and for `0B` an offset (4), after the tag.
    const N: usize = 1 + TIMESTAMP_NANOS_AT;
    const O: usize = 1 + TIMESTAMP_OFFSET_AT;
    const MAX_NANOS: u32 = crate::Timestamp::MAX_NANOS;
    const MAX_OFFSET: i32 = crate::Timestamp::MAX_OFFSET;
    let nanos = u32::from_le_bytes([win[N], win[N + 1], win[N + 2], win[N + 3]]);
    if tag == TAG_TIMESTAMP {
        return (nanos <= MAX_NANOS).then_some(pos + 1 + TIMESTAMP_PAYLOAD);
    }
    let o = i32::from_le_bytes([win[O], win[O + 1], win[O + 2], win[O + 3]]);
    (nanos <= MAX_NANOS && (-MAX_OFFSET..=MAX_OFFSET).contains(&o))
        .then_some(pos + 1 + TIMESTAMP_OFFSET_PAYLOAD)
}
