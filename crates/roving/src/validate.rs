//! The validator: one linear pass over untrusted bytes.
//!
//! Records are laid out back to back from the header to the root record,
//! and every reference points backward, so one forward scan visits each
//! record exactly once: it checks the record's own bytes (lengths, UTF-8,
//! canonical forms) and each of its slots (a defined immediate, or a
//! reference to the *start* of an earlier record of an allowed kind). A
//! bitmap of record starts (one bit per input byte) answers "is this a
//! record start" in O(1). Shared subtrees are therefore checked once, not
//! once per path, there is no recursion, and extra memory is n/8 bytes
//! plus a table of the key strings' hashes.
//!
//! Speed: most records go through a fast path (`fast_run`) that only
//! recognizes the common *valid* records (ASCII strings, arrays and maps
//! with short varints and a recently seen shape, decimal floats,
//! timestamps, byte strings, shapes of up to 8 short-string keys) with few
//! branches and no bounds checks inside a fixed window; anything else, and
//! every error, goes through the full checker (`Validator::record`), so
//! errors are found and reported by one piece of code. A test checks that
//! both paths agree on corrupted documents.
//!
//! In the fast modes the bitmap marks only *value* records (those a value
//! slot may refer to), so a reference is checked by its bit alone, without
//! reading its target's tag; maps find their shapes in a list of the shapes
//! checked so far, and an invalid document is validated again by the full
//! checker alone (bitmap of all records, tags read), which reports the error.

use std::hash::BuildHasher;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU8, Ordering};

use hashbrown::hash_map::Entry;
use hashbrown::{DefaultHashBuilder, HashMap};

use crate::error::{Error, ErrorKind, Result};
use crate::format::*;
use crate::read::{
    decode_slot, locate_root, map_shape_ref, shape_target, vector_data_start, Shape, Slot,
};

/// Checks that `buf` is a complete, well-formed roving document.
///
/// Time is O(len), with no recursion at any depth; memory O(len): a
/// bitmap of `len / 8` bytes, and lists of the shapes and key hashes met,
/// bounded by the number of shape and key records.
///
/// ```
/// let mut bytes = roving::to_vec(&["a", "b"])?;
/// assert!(roving::validate(&bytes).is_ok());
/// bytes.truncate(bytes.len() - 1);
/// let err = roving::validate(&bytes).unwrap_err();
/// assert!(err.offset().is_some());
/// # Ok::<(), roving::Error>(())
/// ```
pub fn validate(buf: &[u8]) -> Result<()> {
    validate_with::<AUTO>(buf)
}

/// [`validate`] through the full checker alone, without the fast path:
/// for the differential fuzz target, which checks that every path gives
/// the same verdict (feature `fuzzing` only; not part of the API).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub fn validate_full(buf: &[u8]) -> Result<()> {
    validate_with::<FULL>(buf)
}

/// [`validate`] with the fast path's portable code (no AVX2), for the
/// differential fuzz target (feature `fuzzing` only; not part of the API).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub fn validate_portable(buf: &[u8]) -> Result<()> {
    validate_with::<PORTABLE>(buf)
}

/// How [`validate_with`] runs: every record through the full checker.
const FULL: u8 = 0;
/// The fast path, portable code only (no AVX2 even where available).
#[cfg(any(test, feature = "fuzzing"))]
const PORTABLE: u8 = 1;
/// The fast path, with AVX2 where the CPU has it.
const AUTO: u8 = 2;

/// [`validate`], with a choice of path ([`FULL`], `PORTABLE`, [`AUTO`])
/// for the tests: all must give the same result on every input.
fn validate_with<const MODE: u8>(buf: &[u8]) -> Result<()> {
    let (_, root_pos) = locate_root(buf)?;
    // A small document (a store record, say) is copied into a buffer with
    // WINDOW zero bytes after it, so that the fast path also takes its last
    // records (else most of a 200-byte record would be within the last
    // WINDOW bytes, left to the full checker).
    // Only the bytes used are written (zeroing all of it would cost more
    // than copying a store record).
    let mut padded = [MaybeUninit::<u8>::uninit(); SMALL_DOC_MAX + WINDOW];
    let fast: &[u8] = if MODE != FULL && buf.len() <= SMALL_DOC_MAX {
        padded_copy(&mut padded, buf)
    } else {
        buf
    };
    // The bitmap of record starts (a bit per byte of `fast`): on the stack
    // for small documents, where an allocation would be a good part of the
    // cost, and only as many words as a store record needs (zeroing the 64
    // of a 4 KiB document would cost more than the rest of its set-up).
    let words = fast.len() / 64 + 1;
    let mut small = [0u64; SMALL_WORDS];
    let mut inline;
    let mut heap = Vec::new();
    let starts: &mut [u64] = if words <= SMALL_WORDS {
        &mut small[..words]
    } else if words <= INLINE_WORDS {
        inline = [0u64; INLINE_WORDS];
        &mut inline[..words]
    } else {
        heap.resize(words, 0u64);
        &mut heap
    };
    let mut v = Validator {
        buf,
        fast,
        overrun: false,
        starts,
        sh: Shapes {
            cache: [(usize::MAX, 0); SHAPE_CACHE],
            few: [(usize::MAX, 0); FEW_SHAPES],
            n: 0,
        },
        key_hashes: None,
        keyed: None,
        keyed_hasher: None,
        seen: Vec::new(),
        value_only: MODE != FULL,
        shapes: Vec::new(),
    };
    let r = v.scan::<MODE>(root_pos);
    if v.overrun || (MODE != FULL && r.is_err()) {
        // The fast path on the padded copy took a record that does not end
        // within the document, or the fast modes found the document
        // invalid: the full checker tells what is wrong (the fast modes'
        // bitmap cannot tell a bad reference from a wrong target).
        return validate_with::<FULL>(buf);
    }
    r
}

/// `buf` (at most [`SMALL_DOC_MAX`] bytes) copied into `padded`, followed
/// by [`WINDOW`] zero bytes: the initialized part of `padded`.
#[inline(always)]
fn padded_copy<'p>(
    padded: &'p mut [MaybeUninit<u8>; SMALL_DOC_MAX + WINDOW],
    buf: &[u8],
) -> &'p [u8] {
    let n = buf.len().min(SMALL_DOC_MAX);
    let dst = padded.as_mut_ptr().cast::<u8>();
    // SAFETY: n + WINDOW <= padded.len(), so the n bytes copied and the
    // WINDOW bytes zeroed are within `padded` (which does not overlap
    // `buf`: it is borrowed mutably); the n + WINDOW bytes returned are
    // those just written, so initialized, and `u8` has no invalid values.
    unsafe {
        std::ptr::copy_nonoverlapping(buf.as_ptr(), dst, n);
        std::ptr::write_bytes(dst.add(n), 0, WINDOW);
        std::slice::from_raw_parts(dst, n + WINDOW)
    }
}

/// Documents up to this size are validated through a padded copy.
const SMALL_DOC_MAX: usize = SMALL_WORDS * 64 - 1 - WINDOW;

/// Bytes a record must have before the end of the input to go through the
/// fast path (a short string's tag and 64 bytes, a tag and a varint).
const WINDOW: usize = 72;

/// Shapes listed without an allocation (see [`Shapes::few`]).
const FEW_SHAPES: usize = 4;

/// Entries of the cache of shapes (position, key count) that maps refer to.
const SHAPE_CACHE: usize = 8;

/// The cache entry for a shape at `s`.
#[inline(always)]
fn shape_slot(s: usize) -> usize {
    (s ^ s >> 3 ^ s >> 6) % SHAPE_CACHE
}

/// Bitmap words kept on the stack (documents up to 4 KiB).
const INLINE_WORDS: usize = 64;

/// Bitmap words for small documents (the padded copy of those up to
/// [`SMALL_DOC_MAX`] bytes, or up to 512 bytes).
const SMALL_WORDS: usize = 8;

/// Keys per shape whose hashes are kept on the stack.
const INLINE_KEYS: usize = 16;

struct Validator<'a, 's> {
    buf: &'a [u8],
    /// What the fast path reads: `buf`, or for small documents a copy
    /// followed by [`WINDOW`] zero bytes (records it takes must end within
    /// `buf`: see [`Self::scan`]).
    fast: &'s [u8],
    /// Set if the fast path took a record that ends beyond `buf`.
    overrun: bool,
    /// One bit per byte of `buf`: a record starts there. `buf.len() / 64 + 1` words.
    starts: &'s mut [u64],
    /// The shapes checked so far (cache, and the first few listed).
    sh: Shapes,
    /// Key hash of each long key string record used by a shape, by
    /// position (made on first use: a hash map's set-up is a good part of
    /// the cost of a small document).
    key_hashes: Option<HashMap<usize, u64>>,
    /// Keyed (random per run) hash of key strings whose key hashes collide
    /// (made on first use).
    keyed: Option<HashMap<usize, u64>>,
    /// Made on first use (rare: only when two keys' key hashes collide).
    keyed_hasher: Option<DefaultHashBuilder>,
    seen: Vec<u64>,
    /// The fast modes' bitmap: `starts` marks only *value* records (those a
    /// value slot may refer to), so a reference is checked by its bit alone.
    /// Shapes are then found in `shapes`, and any error is reported by a
    /// second run of the full checker, whose bitmap marks every record.
    value_only: bool,
    /// With `value_only`: the shapes after the first [`FEW_SHAPES`] (see
    /// [`Shapes::few`]).
    shapes: Vec<(usize, usize)>,
}

/// The shapes checked so far, as (position, key count).
struct Shapes {
    /// Shapes that maps referred to, at [`shape_slot`] or the entry next to
    /// it. Only positions already checked to be shape records are stored;
    /// an empty entry is `usize::MAX`, so only positions before the map
    /// may be looked up (a wrapped relative distance reaches `usize::MAX`).
    cache: [(usize, usize); SHAPE_CACHE],
    /// With [`Validator::value_only`]: each shape checked so far, in
    /// document order (so sorted), for maps that refer to shapes not in
    /// `cache`: the first [`FEW_SHAPES`] here (no allocation for a small
    /// document), the others in [`Validator::shapes`]. At most
    /// [`Validator::shapes_max`] in all.
    few: [(usize, usize); FEW_SHAPES],
    /// How many shapes were checked (listed in `few` and then `shapes`).
    n: usize,
}

/// Tags of records a value slot may point to.
static IS_VALUE_TAG: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = matches!(b, 0x01..=0x17 | TAG_F_DEC) || b & 0xC0 == TAG_SHORT_STR;
        i += 1;
    }
    t
};

/// True if every byte is ASCII (word at a time; strings here are short).
#[inline(always)]
fn is_ascii(s: &[u8]) -> bool {
    #[inline(always)]
    fn word(b: &[u8]) -> u64 {
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
    let n = s.len();
    if n < 8 {
        let mut acc = 0u8;
        for &b in s {
            acc |= b;
        }
        return acc < 0x80;
    }
    // Whole words, then one last word overlapping the end.
    let mut acc = word(&s[n - 8..]);
    let mut i = 0;
    while i + 8 <= n {
        acc |= word(&s[i..i + 8]);
        i += 8;
    }
    acc & 0x8080_8080_8080_8080 == 0
}

/// True if the first `len` (< 64) bytes of `s` are ASCII.
///
/// On x86_64 four 16-byte loads give the high bits of all 64 bytes and a
/// mask keeps the first `len`: no loop and no branch on the length.
#[inline(always)]
fn ascii_prefix(s: &[u8; 64], len: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8};
        let b = s.as_ptr().cast::<std::arch::x86_64::__m128i>();
        // SAFETY: `s` is 64 readable bytes, so are the four unaligned
        // 16-byte loads at b, b + 16, b + 32, b + 48; SSE2 is part of x86_64.
        let high = unsafe {
            let m0 = _mm_movemask_epi8(_mm_loadu_si128(b)) as u16 as u64;
            let m1 = _mm_movemask_epi8(_mm_loadu_si128(b.add(1))) as u16 as u64;
            let m2 = _mm_movemask_epi8(_mm_loadu_si128(b.add(2))) as u16 as u64;
            let m3 = _mm_movemask_epi8(_mm_loadu_si128(b.add(3))) as u16 as u64;
            m0 | m1 << 16 | m2 << 32 | m3 << 48
        };
        high & ((1u64 << (len & 63)) - 1) == 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    is_ascii(&s[..len.min(64)])
}

/// [`ascii_prefix`] with two 32-byte loads.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn ascii_prefix_avx2(s: &[u8; 64], len: usize) -> bool {
    use std::arch::x86_64::{_mm256_loadu_si256, _mm256_movemask_epi8};
    let b = s.as_ptr().cast::<std::arch::x86_64::__m256i>();
    // SAFETY: `s` is 64 readable bytes, so are the two unaligned 32-byte
    // loads at b and b + 32; the CPU supports AVX2 (the caller's contract).
    let high = unsafe {
        let lo = _mm256_movemask_epi8(_mm256_loadu_si256(b)) as u32 as u64;
        let hi = _mm256_movemask_epi8(_mm256_loadu_si256(b.add(1))) as u32 as u64;
        lo | hi << 32
    };
    high & ((1u64 << (len & 63)) - 1) == 0
}

/// True if `s` is ASCII: 64 bytes per step on x86_64 (for long strings).
#[inline(always)]
fn is_ascii_long(s: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128};
        let mut chunks = s.chunks_exact(64);
        for c in &mut chunks {
            let b = c.as_ptr().cast::<std::arch::x86_64::__m128i>();
            // SAFETY: `c` is 64 readable bytes, so are the four unaligned
            // 16-byte loads at b, b + 16, b + 32, b + 48; SSE2 is part of x86_64.
            let high = unsafe {
                let x = _mm_or_si128(_mm_loadu_si128(b), _mm_loadu_si128(b.add(1)));
                let y = _mm_or_si128(_mm_loadu_si128(b.add(2)), _mm_loadu_si128(b.add(3)));
                _mm_movemask_epi8(_mm_or_si128(x, y))
            };
            if high != 0 {
                return false;
            }
        }
        is_ascii(chunks.remainder())
    }
    #[cfg(not(target_arch = "x86_64"))]
    is_ascii(s)
}

#[cold]
#[inline(never)]
fn err<T>(kind: ErrorKind, at: usize) -> Result<T> {
    Err(Error::at(kind, at))
}

/// An unknown tag at `pos`; where a header (`RV`, version) stands there
/// instead of a record, documents were written one after another (as
/// repeated `pickle.dump`s to one file are), and the message says so.
#[cold]
#[inline(never)]
fn unknown_tag(buf: &[u8], t: u8, pos: usize) -> Error {
    let e = Error::at(ErrorKind::UnknownTag(t), pos);
    let header = [MAGIC[0], MAGIC[1], VERSION];
    if buf[pos..].starts_with(&header) {
        e.with_message(
            "another document starts here (its \"RV\" header): documents written one \
             after another cannot be read as one; a buffer or file holds one document",
        )
    } else {
        e
    }
}

/// A value slot of width `W` (1, 2, 4 or 8) from `c` (`W` bytes): one load.
#[inline(always)]
fn load_slot<const W: usize>(c: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..W].copy_from_slice(&c[..W]);
    u64::from_le_bytes(b)
}

/// Runs the fast path from `pos` as long as it accepts records; returns
/// where it stopped: at a record it leaves to [`Validator::record`], or
/// within the last [`WINDOW`] bytes. Marks the records it accepts.
///
/// With `Some(avx2)` the same code compiled for AVX2 and BMI2 runs: a
/// short string's 64 bytes take two 32-byte loads instead of four of 16, and
/// shifts by a variable need no `cl` register.
#[inline(never)]
fn fast_run(
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
        if win[0] & !3 != TAG_SHAPE || starts.len() <= buf.len() / 64 {
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
struct Avx2(());

impl Avx2 {
    /// `Some` if the CPU has AVX2 and BMI2 (detected at run time, the
    /// answer kept in [`AVX2_BMI2`]: one load per validation).
    #[inline(always)]
    fn detect() -> Option<Avx2> {
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
    if tag & !3 != TAG_SHAPE
        || count > SHAPE_LINEAR_MAX
        || shapes.n >= FEW_SHAPES
        || count > doc_len / 8
    {
        return None;
    }
    let ok = match tag & 3 {
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
    Some(pos + 2 + count * WIDTHS[(tag & 3) as usize])
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
        let raw = load_slot::<W>(c);
        let key = if raw & 1 != 0 {
            if raw != SPECIAL_EMPTY_STR << 2 | 3 {
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
            if word & (1 << (t % 64)) == 0 || tag & 0xC0 != TAG_SHORT_STR {
                return false;
            }
            (t + 1, (tag & 0x3F) as usize)
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
/// maps whose counts or shape references take one or two varint bytes and
/// whose shape is in `shapes`, decimal floats. Returns its end, or `None`
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
    if tag & 0xC0 == TAG_SHORT_STR {
        let len = (tag & 0x3F) as usize;
        let s: &[u8; 64] = win[1..65].try_into().ok()?;
        #[cfg(target_arch = "x86_64")]
        if AVX2 {
            // SAFETY: the CPU supports AVX2 (this function's contract).
            return unsafe { ascii_prefix_avx2(s, len) }.then_some(pos + 1 + len);
        }
        return ascii_prefix(s, len).then_some(pos + 1 + len);
    }
    if tag == TAG_F_DEC {
        return ((win[1] as i8).unsigned_abs() <= F_DEC_MAX_EXP as u8).then_some(pos + 6);
    }
    // A one- or two-byte varint after the tag: (value, its length).
    let (v, vlen) = if win[1] < 0x80 {
        (win[1] as usize, 1)
    } else if win[2].wrapping_sub(1) < 0x7F {
        ((win[1] & 0x7F) as usize | (win[2] as usize) << 7, 2)
    } else {
        return fast_timestamp(tag, win, pos);
    };
    let q = pos + 1 + vlen;
    let w = WIDTHS[(tag & 3) as usize];
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
    // Seconds (8 bytes), nanos (4), and for `0B` an offset (4).
    let nanos = u32::from_le_bytes([win[9], win[10], win[11], win[12]]);
    if tag == TAG_TIMESTAMP {
        return (nanos <= 999_999_999).then_some(pos + 13);
    }
    let o = i32::from_le_bytes([win[13], win[14], win[15], win[16]]);
    (nanos <= 999_999_999 && (-86_399..=86_399).contains(&o)).then_some(pos + 17)
}

/// Whether the value slots in `buf[p..end]` (in bounds) of the container at
/// `base` are valid, given the bitmap of record starts before `base`.
#[inline(always)]
fn slots_ok<const TAGS: bool>(
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
/// The target of a reference slot `raw` (kind 00 or 10) of a container at
/// `base`: relative `base - x` (x = 0 or x > base wraps to >= base) or
/// absolute `x`. Callers reject targets >= base.
#[inline(always)]
fn ref_target(raw: u64, base: usize) -> usize {
    let x = (raw >> 2) as usize;
    if raw & 2 == 0 {
        base.wrapping_sub(x)
    } else {
        x
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
        word & (1 << (t % 64)) != 0 && (!TAGS || IS_VALUE_TAG[head[t] as usize])
    };
    for c in bytes.chunks_exact(W) {
        if !ok(load_slot::<W>(c)) {
            return false;
        }
    }
    true
}

impl Validator<'_, '_> {
    /// The forward scan over all records (rule 3: they tile the input);
    /// then the root record at `root_pos` must be the last one.
    ///
    /// Records that start at least [`WINDOW`] bytes before the end go
    /// through [`fast_run`], which accepts the common valid records with
    /// few checks (a `WINDOW`-byte view needs no bounds checks). Everything
    /// it does not accept, and all records near the end, go through
    /// [`Self::record`], which checks every rule and tells what is wrong.
    fn scan<const MODE: u8>(&mut self, root_pos: usize) -> Result<()> {
        let buf = self.buf;
        let n = buf.len();
        let mut pos = HEADER_LEN;
        let avx2 = if MODE == AUTO { Avx2::detect() } else { None };
        loop {
            if MODE != FULL {
                pos = fast_run(self.fast, self.starts, &mut self.sh, n, pos, avx2);
                if pos > n {
                    // A record taken on the padded copy ends beyond the
                    // document (records tile, so it is the last one taken):
                    // left to the full checker (see `validate_with`).
                    self.overrun = true;
                    return Ok(());
                }
            }
            if pos >= n {
                break;
            }
            if MODE == FULL || IS_VALUE_TAG[buf[pos] as usize] {
                self.mark(pos);
            }
            if MODE != FULL && pos == root_pos {
                // The root record, last (`locate_root` checked its two
                // tags): only its slot is left to check.
                let w = WIDTHS[(buf[pos] & 3) as usize];
                if pos + w + 2 == n && slots_ok::<false>(buf, self.starts, pos + 1, n - 1, w, pos) {
                    return Ok(());
                }
            }
            pos = self.record(pos)?;
        }
        if MODE != FULL {
            // The scan ended without reaching the root record (which is not
            // marked in this mode's bitmap): the full checker tells why.
            return err(ErrorKind::BadTrailer, root_pos);
        }
        // Records end exactly at `n` (`record` never goes beyond). The
        // record at `root_pos` is `w + 2` bytes long and ends at `n`, so if
        // one starts there it is the last one.
        if !self.is_start(root_pos) {
            let last = (0..n).rev().find(|&p| self.is_start(p)).unwrap_or(0);
            return Err(Error::at(ErrorKind::BadTrailer, last));
        }
        Ok(())
    }

    /// Marks `pos` (< `buf.len()`) as a record start.
    #[inline(always)]
    fn mark(&mut self, pos: usize) {
        debug_assert!(pos < self.buf.len());
        // SAFETY: pos < buf.len(), and `starts` has buf.len() / 64 + 1 words.
        unsafe { *self.starts.get_unchecked_mut(pos / 64) |= 1 << (pos % 64) };
    }

    /// Whether a record starts at `p`, which must be < `buf.len()`.
    #[inline(always)]
    fn is_start(&self, p: usize) -> bool {
        assert!(p < self.buf.len());
        // SAFETY: p < buf.len() (checked above, and known to the optimizer
        // at the hot call sites), and `starts` has buf.len() / 64 + 1 words.
        unsafe { *self.starts.get_unchecked(p / 64) & (1 << (p % 64)) != 0 }
    }

    #[inline(always)]
    fn varint(&self, p: usize) -> Result<(u64, usize)> {
        match read_varint(self.buf, p) {
            Some(x) => Ok(x),
            None if p >= self.buf.len() => err(ErrorKind::Truncated, p),
            None => {
                // Truncated or malformed: tell which.
                let end = self.buf[p..].iter().position(|b| b & 0x80 == 0);
                match end {
                    None => err(ErrorKind::Truncated, p),
                    Some(_) => err(ErrorKind::BadVarint, p),
                }
            }
        }
    }

    /// `len` bytes at `p`, or an error.
    #[inline(always)]
    fn span(&self, p: usize, len: u64, at: usize) -> Result<usize> {
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| p.checked_add(l))
            .ok_or_else(|| Error::at(ErrorKind::BadLength, at))?;
        if end > self.buf.len() {
            return err(
                if len as usize <= self.buf.len() {
                    ErrorKind::Truncated
                } else {
                    ErrorKind::BadLength
                },
                at,
            );
        }
        Ok(end)
    }

    #[inline(always)]
    fn utf8(&self, p: usize, end: usize) -> Result<()> {
        let s = &self.buf[p..end];
        if is_ascii_long(s) || simdutf8::basic::from_utf8(s).is_ok() {
            Ok(())
        } else {
            let bad = std::str::from_utf8(s).err().map_or(0, |e| e.valid_up_to());
            err(ErrorKind::InvalidUtf8, p + bad)
        }
    }

    /// Validates the record at `pos` (not a short string); returns the position after it.
    #[inline(never)]
    fn record(&mut self, pos: usize) -> Result<usize> {
        let buf = self.buf;
        let tag = buf[pos];
        let p = pos + 1;
        match tag {
            t if t & !3 == TAG_MAP => {
                let w = WIDTHS[(t & 3) as usize];
                self.varint(p)?;
                let (s, q) =
                    map_shape_ref(buf, pos).ok_or_else(|| Error::at(ErrorKind::BadReference, p))?;
                let count = self.shape_count(s, p)?;
                let len = (count as u64)
                    .checked_mul(w as u64)
                    .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
                let end = self.span(q, len, pos)?;
                self.slots(q, end, w, pos)?;
                Ok(end)
            }
            t if t & !3 == TAG_ARRAY => {
                let w = WIDTHS[(t & 3) as usize];
                let (count, q) = self.varint(p)?;
                let len = count
                    .checked_mul(w as u64)
                    .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
                let end = self.span(q, len, pos)?;
                self.slots(q, end, w, pos)?;
                Ok(end)
            }
            TAG_STR => {
                let (len, p) = self.varint(p)?;
                let end = self.span(p, len, pos)?;
                self.utf8(p, end)?;
                Ok(end)
            }
            TAG_F_DEC => {
                let end = self.span(p, 5, pos)?;
                if (buf[p] as i8).unsigned_abs() > F_DEC_MAX_EXP as u8 {
                    return err(ErrorKind::NonCanonical, p);
                }
                Ok(end)
            }
            _ => self.other_record(pos),
        }
    }

    /// Key count of the shape that a map at `at - 1` refers to at `s`.
    #[inline(always)]
    fn shape_count(&mut self, s: usize, at: usize) -> Result<usize> {
        let h = shape_slot(s);
        for (cached, count) in [self.sh.cache[h], self.sh.cache[h ^ 1]] {
            if cached == s {
                return Ok(count);
            }
        }
        if self.value_only {
            // Shapes are not in the bitmap: one of the shapes checked so far?
            let list = if self.sh.n <= FEW_SHAPES || s <= self.sh.few[FEW_SHAPES - 1].0 {
                &self.sh.few[..self.sh.n.min(FEW_SHAPES)]
            } else {
                &self.shapes[..]
            };
            let i = list
                .binary_search_by_key(&s, |&(p, _)| p)
                .or_else(|_| err(ErrorKind::BadReference, at))?;
            let count = list[i].1;
            self.cache_shape(s, count);
            return Ok(count);
        }
        if !self.is_start(s) {
            return err(ErrorKind::BadReference, at);
        }
        let shape = Shape::at(self.buf, s).ok_or_else(|| Error::at(ErrorKind::WrongTarget, at))?;
        self.cache_shape(s, shape.count);
        Ok(shape.count)
    }

    /// Notes the shape at `s` (a valid shape record of `count` keys, after
    /// all earlier ones): in the cache, and with [`Self::value_only`] in
    /// the list of shapes. A document with more than [`Self::shapes_max`]
    /// shapes is left to the full checker (an error here makes
    /// `validate_with` run it), so the list stays within `len / 4` bytes.
    #[inline(always)]
    fn checked_shape(&mut self, s: usize, count: usize) -> Result<()> {
        if self.value_only {
            if self.sh.n >= self.shapes_max() {
                return err(ErrorKind::BadLength, s);
            }
            match self.sh.few.get_mut(self.sh.n) {
                Some(e) => *e = (s, count),
                None => self.shapes.push((s, count)),
            }
            self.sh.n += 1;
        }
        self.cache_shape(s, count);
        Ok(())
    }

    /// Most shapes [`Self::shapes`] holds: 16 bytes each, `len / 4` bytes in all.
    fn shapes_max(&self) -> usize {
        self.buf.len() / 64 + 4
    }

    /// Puts the shape at `s` (a valid shape record of `count` keys) in the cache.
    #[inline(always)]
    fn cache_shape(&mut self, s: usize, count: usize) {
        // Cached counts are at most len / 8, so count * width cannot overflow.
        // Two ways: the entry at h moves to h ^ 1, so two shapes whose
        // entries collide stay cached.
        let h = shape_slot(s);
        if count <= self.buf.len() / 8 && self.sh.cache[h].0 != s {
            self.sh.cache[h ^ 1] = self.sh.cache[h];
            self.sh.cache[h] = (s, count);
        }
    }

    /// The records other than strings, arrays, maps and decimal floats.
    #[inline(never)]
    fn other_record(&mut self, pos: usize) -> Result<usize> {
        let buf = self.buf;
        let tag = buf[pos];
        let p = pos + 1;
        match tag {
            t if t & 0xC0 == TAG_SHORT_STR => {
                let end = self.span(p, (t & 0x3F) as u64, pos)?;
                self.utf8(p, end)?;
                Ok(end)
            }
            TAG_I8 => self.span(p, 1, pos),
            TAG_I16 => self.span(p, 2, pos),
            TAG_I32 | TAG_F32 => self.span(p, 4, pos),
            TAG_I64 | TAG_U64 | TAG_F64 => self.span(p, 8, pos),
            TAG_BIGINT_POS | TAG_BIGINT_NEG => {
                let (len, q) = self.varint(p)?;
                let end = self.span(q, len, pos)?;
                let mag = &buf[q..end];
                let canonical = match mag.last() {
                    None | Some(0) => false,
                    Some(_) if tag == TAG_BIGINT_POS => mag.len() > 8,
                    Some(_) => {
                        mag.len() > 8
                            || (mag.len() == 8
                                && u64::from_le_bytes(mag.try_into().unwrap_or([0; 8])) > 1 << 63)
                    }
                };
                if !canonical {
                    return err(ErrorKind::NonCanonical, pos);
                }
                Ok(end)
            }
            TAG_TIMESTAMP | TAG_TIMESTAMP_OFFSET => {
                let n = if tag == TAG_TIMESTAMP { 12 } else { 16 };
                let end = self.span(p, n, pos)?;
                let nanos = u32::from_le_bytes([buf[p + 8], buf[p + 9], buf[p + 10], buf[p + 11]]);
                if nanos > 999_999_999 {
                    return err(ErrorKind::NonCanonical, p + 8);
                }
                if tag == TAG_TIMESTAMP_OFFSET {
                    let o =
                        i32::from_le_bytes([buf[p + 12], buf[p + 13], buf[p + 14], buf[p + 15]]);
                    if !(-86_399..=86_399).contains(&o) {
                        return err(ErrorKind::NonCanonical, p + 12);
                    }
                }
                Ok(end)
            }
            TAG_BYTES => {
                let (len, q) = self.varint(p)?;
                self.span(q, len, pos)
            }
            TAG_EXT => {
                let (_, q) = self.varint(p)?;
                let (len, q) = self.varint(q)?;
                self.span(q, len, pos)
            }
            TAG_VECTOR => {
                let code = *buf
                    .get(p)
                    .ok_or_else(|| Error::at(ErrorKind::Truncated, p))?;
                let elem = ElemType::from_code(code)
                    .ok_or_else(|| Error::at(ErrorKind::UnknownTag(code), p))?;
                let (count, q) = self.varint(p + 1)?;
                let start = vector_data_start(q, elem);
                let pad_end = self.span(q, (start - q) as u64, pos)?;
                if buf[q..pad_end].iter().any(|&b| b != 0) {
                    return err(ErrorKind::NonCanonical, q);
                }
                let len = count
                    .checked_mul(elem.size() as u64)
                    .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
                self.span(start, len, pos)
            }
            t if t & !3 == TAG_SHAPE => self.shape(pos, WIDTHS[(t & 3) as usize]),
            t if t & !3 == TAG_ROOT => {
                let w = WIDTHS[(t & 3) as usize];
                let q = self.span(p, w as u64 + 1, pos)?;
                self.slots(p, q - 1, w, pos)?;
                if buf[q - 1] != t {
                    return err(ErrorKind::BadTrailer, q - 1);
                }
                Ok(q)
            }
            t => Err(unknown_tag(buf, t, pos)),
        }
    }

    /// Checks the value slots in `buf[p..end]` (in bounds) of the container at `base`.
    #[inline(always)]
    fn slots(&self, p: usize, end: usize, w: usize, base: usize) -> Result<()> {
        if self.value_only {
            if slots_ok::<false>(self.buf, self.starts, p, end, w, base) {
                return Ok(());
            }
            // Reported by the full checker (see `value_only`).
            return err(ErrorKind::BadReference, p);
        }
        if slots_ok::<true>(self.buf, self.starts, p, end, w, base) {
            Ok(())
        } else {
            self.slot_error(p, end, w, base)
        }
    }

    /// The first invalid value slot in `buf[p..end]`, as an error.
    #[cold]
    #[inline(never)]
    fn slot_error(&self, p: usize, end: usize, w: usize, base: usize) -> Result<()> {
        for at in (p..end).step_by(w) {
            let raw =
                read_uint(self.buf, at, w).ok_or_else(|| Error::at(ErrorKind::Truncated, at))?;
            match decode_slot(raw, w, base) {
                Some(Slot::Special(s)) if s >= SPECIAL_COUNT => {
                    return err(ErrorKind::BadImmediate, at)
                }
                Some(Slot::Ref(t)) => {
                    if !self.is_start(t) {
                        return err(ErrorKind::BadReference, at);
                    }
                    if !IS_VALUE_TAG[self.buf[t] as usize] {
                        return err(ErrorKind::WrongTarget, at);
                    }
                }
                Some(_) => {}
                None => return err(ErrorKind::BadReference, at),
            }
        }
        Ok(())
    }

    /// Checks the key slots in `buf[p..end]` (in bounds) of the shape at
    /// `base`: each refers to a string record or is the empty-string constant.
    fn key_slots(&self, p: usize, end: usize, w: usize, base: usize) -> Result<()> {
        for at in (p..end).step_by(w) {
            let raw =
                read_uint(self.buf, at, w).ok_or_else(|| Error::at(ErrorKind::Truncated, at))?;
            match decode_slot(raw, w, base) {
                Some(Slot::Special(SPECIAL_EMPTY_STR)) => {}
                Some(Slot::Ref(t)) => {
                    if !self.is_start(t) {
                        return err(ErrorKind::BadReference, at);
                    }
                    let tag = self.buf[t];
                    if tag & 0xC0 != TAG_SHORT_STR && tag != TAG_STR {
                        return err(ErrorKind::WrongTarget, at);
                    }
                }
                Some(_) => return err(ErrorKind::WrongTarget, at),
                None => return err(ErrorKind::BadReference, at),
            }
        }
        Ok(())
    }

    /// The key slots of a shape of at most [`SHAPE_LINEAR_MAX`] keys, in
    /// `buf[p..end]` (in bounds), as [`Self::key_slots`]; then, if every key
    /// is at most 64 bytes long, checks that the keys are distinct by
    /// comparing their bytes (at most 28 pairs of at most 64 bytes: cheaper
    /// than hashing them, and bounded) and returns true. Returns false,
    /// with the duplicates left to the hashing path, if a key is longer
    /// (long keys can be shared by many shapes: comparing them again in
    /// each would not be linear time).
    #[inline(always)]
    fn small_shape_keys(&self, p: usize, end: usize, w: usize, base: usize) -> Result<bool> {
        let buf = self.buf;
        let mut keys: [&[u8]; SHAPE_LINEAR_MAX] = [&[]; SHAPE_LINEAR_MAX];
        let mut short = true;
        for (i, at) in (p..end).step_by(w).enumerate() {
            let raw = read_uint(buf, at, w).ok_or_else(|| Error::at(ErrorKind::Truncated, at))?;
            match decode_slot(raw, w, base) {
                Some(Slot::Special(SPECIAL_EMPTY_STR)) => keys[i] = &[],
                Some(Slot::Ref(t)) => {
                    if !self.is_start(t) {
                        return err(ErrorKind::BadReference, at);
                    }
                    let tag = buf[t];
                    if tag & 0xC0 == TAG_SHORT_STR {
                        // Validated (t < base): its bytes are within `buf`.
                        keys[i] = buf.get(t + 1..t + 1 + (tag & 0x3F) as usize).unwrap_or(&[]);
                    } else if tag == TAG_STR {
                        short = false;
                    } else {
                        return err(ErrorKind::WrongTarget, at);
                    }
                }
                Some(_) => return err(ErrorKind::WrongTarget, at),
                None => return err(ErrorKind::BadReference, at),
            }
        }
        if !short {
            return Ok(false);
        }
        let n = (end - p) / w;
        for i in 1..n {
            for j in 0..i {
                if keys[i] == keys[j] {
                    return err(ErrorKind::DuplicateKey, p + i * w);
                }
            }
        }
        Ok(true)
    }

    /// Whether the key slots of width `W` in `buf[p..end]` (in bounds, at
    /// most [`SHAPE_LINEAR_MAX`]) of the shape at `base` are valid, all
    /// keys are short strings (or the empty-string constant) and distinct.
    /// `false` leaves it to [`Self::small_shape_keys`].
    #[inline(always)]
    fn small_shape_ok<const W: usize>(&self, p: usize, end: usize, base: usize) -> bool {
        let buf = self.buf;
        let Some(head) = buf.get(..base) else {
            return false;
        };
        if self.starts.len() <= base / 64 {
            return false;
        }
        // (Start, length) of each key's bytes.
        let mut keys = [(0usize, 0usize); SHAPE_LINEAR_MAX];
        let mut n = 0;
        for c in buf[p..end].chunks_exact(W).take(SHAPE_LINEAR_MAX) {
            let raw = load_slot::<W>(c);
            if raw & 1 != 0 {
                if raw != SPECIAL_EMPTY_STR << 2 | 3 {
                    return false;
                }
                keys[n] = (0, 0);
            } else {
                let t = ref_target(raw, base);
                if t >= head.len() {
                    return false;
                }
                // SAFETY: t < base and starts.len() > base / 64 (checked above).
                let word = unsafe { *self.starts.get_unchecked(t / 64) };
                let tag = head[t];
                if word & (1 << (t % 64)) == 0 || tag & 0xC0 != TAG_SHORT_STR {
                    return false;
                }
                keys[n] = (t + 1, (tag & 0x3F) as usize);
            }
            n += 1;
        }
        // A short string record before `base` (validated) lies within `head`.
        let bytes = |(s, l): (usize, usize)| head.get(s..s + l);
        for i in 1..n {
            for j in 0..i {
                if keys[i].1 == keys[j].1 && bytes(keys[i]) == bytes(keys[j]) {
                    return false;
                }
            }
        }
        true
    }

    /// Validates a shape record: key slots, no duplicate keys, and an index
    /// through which every key is found by linear probing.
    fn shape(&mut self, pos: usize, w: usize) -> Result<usize> {
        let (count, q) = self.varint(pos + 1)?;
        let len = count
            .checked_mul(w as u64)
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        let keys_end = self.span(q, len, pos)?;
        if count <= SHAPE_LINEAR_MAX as u64 {
            // No index, and (for short keys) no hashes: compare the keys.
            // The common case first (valid, all keys short), then the
            // general one, which reports what is wrong.
            let ok = match w {
                1 => self.small_shape_ok::<1>(q, keys_end, pos),
                2 => self.small_shape_ok::<2>(q, keys_end, pos),
                4 => self.small_shape_ok::<4>(q, keys_end, pos),
                _ => self.small_shape_ok::<8>(q, keys_end, pos),
            };
            if ok || self.small_shape_keys(q, keys_end, w, pos)? {
                self.checked_shape(pos, count as usize)?;
                return Ok(keys_end);
            }
        } else {
            self.key_slots(q, keys_end, w, pos)?;
        }
        let shape = Shape::at(self.buf, pos).ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        let count = shape.count;
        let end = if count > SHAPE_LINEAR_MAX {
            let bytes = (shape.table_size() as u64)
                .checked_mul(index_entry_width(count) as u64)
                .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
            self.span(keys_end, bytes, pos)?
        } else {
            keys_end
        };
        debug_assert_eq!(end, shape.end());

        // Key hashes (long keys memoized per record) and duplicates.
        let (mut hashes_inline, mut records_inline) = ([0u64; INLINE_KEYS], [None; INLINE_KEYS]);
        let (mut hashes_heap, mut records_heap) = (Vec::new(), Vec::new());
        let (hashes, records): (&mut [u64], &mut [Option<usize>]) = if count <= INLINE_KEYS {
            (&mut hashes_inline[..count], &mut records_inline[..count])
        } else {
            hashes_heap.resize(count, 0);
            records_heap.resize(count, None);
            (&mut hashes_heap, &mut records_heap)
        };
        for i in 0..count {
            let rec = shape
                .key_record(self.buf, i)
                .ok_or_else(|| Error::at(ErrorKind::WrongTarget, pos))?;
            hashes[i] = self.key_hash_of(&shape, i, rec);
            records[i] = rec;
        }
        let (hashes, records) = (&*hashes, &*records);
        // Pairs of keys with equal key hashes: the same record is a duplicate;
        // different records are told apart by a keyed hash, random per run,
        // so no input can force long byte comparisons.
        let mut colliding: Vec<(usize, usize)> = Vec::new();
        if count <= 16 {
            for i in 1..count {
                for j in 0..i {
                    if hashes[i] == hashes[j] {
                        colliding.push((j, i));
                    }
                }
            }
        } else {
            let mut by_hash: HashMap<u64, usize> = HashMap::with_capacity(count);
            for (i, &h) in hashes.iter().enumerate() {
                match by_hash.entry(h) {
                    Entry::Occupied(e) => colliding.push((*e.get(), i)),
                    Entry::Vacant(e) => {
                        e.insert(i);
                    }
                }
            }
        }
        if !colliding.is_empty() {
            let mut keyed_seen: HashMap<u64, usize> = HashMap::new();
            for (j, i) in colliding {
                if records[i] == records[j] {
                    return err(ErrorKind::DuplicateKey, q + i * w);
                }
                for k in [j, i] {
                    let kh = self.keyed_of(&shape, k, records[k]);
                    if let Some(&other) = keyed_seen.get(&kh) {
                        if other != k {
                            return err(ErrorKind::DuplicateKey, q + i * w);
                        }
                    }
                    keyed_seen.insert(kh, k);
                }
            }
        }
        if count > SHAPE_LINEAR_MAX {
            self.index(&shape, hashes, keys_end)?;
        }
        self.checked_shape(pos, count)?;
        Ok(end)
    }

    fn key_hash_of(&mut self, shape: &Shape, i: usize, rec: Option<usize>) -> u64 {
        match rec {
            None => key_hash(b""),
            Some(r) => {
                let bytes = shape.key_bytes(self.buf, i).unwrap_or(&[]);
                // Short keys are hashed each time; long ones once per record,
                // so shapes sharing long keys cost linear time overall.
                if bytes.len() <= 64 {
                    return key_hash(bytes);
                }
                let memo = self.key_hashes.get_or_insert_with(HashMap::new);
                *memo.entry(r).or_insert_with(|| key_hash(bytes))
            }
        }
    }

    fn keyed_of(&mut self, shape: &Shape, i: usize, rec: Option<usize>) -> u64 {
        let r = rec.unwrap_or(usize::MAX);
        let memo = self.keyed.get_or_insert_with(HashMap::new);
        if let Some(&h) = memo.get(&r) {
            return h;
        }
        let h = self
            .keyed_hasher
            .get_or_insert_with(DefaultHashBuilder::default)
            .hash_one(shape.key_bytes(self.buf, i).unwrap_or(&[]));
        memo.insert(r, h);
        h
    }

    /// Checks a shape's hash index in O(table size).
    fn index(&mut self, shape: &Shape, hashes: &[u64], at: usize) -> Result<()> {
        let t = shape.table_size();
        let count = hashes.len();
        self.seen.clear();
        self.seen.resize(count / 64 + 1, 0);
        let mut filled = 0usize;
        let mut empty = None;
        for p in 0..t {
            let e = shape.entry(self.buf, p).unwrap_or(usize::MAX);
            if e == 0 {
                empty.get_or_insert(p);
                continue;
            }
            let k = e - 1;
            if k >= count || self.seen[k / 64] & (1 << (k % 64)) != 0 {
                return err(ErrorKind::BadIndex, at);
            }
            self.seen[k / 64] |= 1 << (k % 64);
            filled += 1;
        }
        let Some(empty) = empty else {
            return err(ErrorKind::BadIndex, at);
        };
        if filled != count {
            return err(ErrorKind::BadIndex, at);
        }
        // Linear-probing invariant: between a key's home and its entry
        // there is no empty entry. Walk once around from an empty entry.
        let mask = t - 1;
        let mut run_start = (empty + 1) & mask;
        for step in 1..=t {
            let p = (empty + step) & mask;
            let e = shape.entry(self.buf, p).unwrap_or(0);
            if e == 0 {
                run_start = (p + 1) & mask;
                continue;
            }
            let home = index_home(hashes[e - 1], t);
            if (p.wrapping_sub(home) & mask) > (p.wrapping_sub(run_start) & mask) {
                return err(ErrorKind::BadIndex, at);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny() {
        assert!(validate(b"").is_err());
        assert!(validate(b"RV").is_err());
        assert!(validate(b"RV\x01").is_err());
        // root: null immediate, width 1
        assert!(validate(b"RV\x01\x1c\x03\x1c").is_ok());
        // undefined special
        assert!(validate(b"RV\x01\x1c\xff\x1c").is_err());
        // self reference of the root
        assert!(validate(b"RV\x01\x1c\x00\x1c").is_err());
    }

    /// Documents written one after another (as repeated `pickle.dump`s to
    /// one file are) fail at the second header, with a message saying so,
    /// on every path; another unknown tag keeps the plain message.
    #[test]
    fn concatenated_documents_say_so() {
        let one = b"RV\x01\x81a\x1c\x08\x1c";
        let doc = [&one[..], &one[..]].concat();
        for r in [
            validate(&doc),
            validate_with::<FULL>(&doc),
            validate_with::<PORTABLE>(&doc),
        ] {
            let e = r.expect_err("two documents");
            assert_eq!(*e.kind(), ErrorKind::UnknownTag(b'R'));
            assert_eq!(e.offset(), Some(one.len() as u64));
            assert!(
                e.to_string().contains("another document starts here"),
                "{e}"
            );
        }
        let e = validate(b"RV\x01\x81a\x1c\x08\x1cRW\x01\x1c\x03\x1c").expect_err("unknown tag");
        assert_eq!(e.to_string(), "unknown tag 0x52 (byte offset 8)");
    }

    /// A map whose relative shape distance is its own offset + 1 (a shape
    /// at offset -1, which wraps to `usize::MAX`) is rejected, by the fast
    /// path as by the full checker (found by the outsider reader of
    /// `tests/reference`: the fast path took it for an empty map).
    #[test]
    fn map_shape_before_the_start() {
        // A map at 3 with distance 4; a map at 5 (after "a") with distance 6.
        for doc in [
            &b"RV\x01\x14\x08\x1c\x08\x1c"[..],
            &b"RV\x01\x81a\x14\x0c\x1c\x08\x1c"[..],
        ] {
            for r in [
                validate(doc),
                validate_with::<FULL>(doc),
                validate_with::<PORTABLE>(doc),
            ] {
                let e = r.expect_err("a shape before the document's start");
                assert_eq!(*e.kind(), ErrorKind::BadReference, "{doc:x?}");
            }
        }
        // Distances 1..=offset that land on no shape are rejected too.
        for d in 1..=4u8 {
            let doc = [b'R', b'V', 1, 0x81, b'a', 0x14, d << 1, 0x1c, 0x08, 0x1c];
            assert!(validate(&doc).is_err(), "distance {d}");
        }
    }

    use crate::test_rng::Rng;

    /// A document with every kind of record the fast path takes (short and
    /// long strings, ASCII or not, arrays and maps of slot widths 1 to 8,
    /// shapes with and without an index, decimal floats of both signs) and
    /// a few it leaves to the full checker (big and wide integers, floats).
    fn mixed_doc(rng: &mut Rng, items: usize) -> Vec<u8> {
        let words = [
            "a",
            "x\u{e9}",
            "name",
            "\u{65e5}\u{672c}",
            "tag",
            "\u{1f600}",
            "q",
        ];
        let mut json = String::from("[");
        for i in 0..items {
            if i > 0 {
                json.push(',');
            }
            let word = |r: &mut Rng| words[r.below(words.len() as u64) as usize];
            let text =
                |r: &mut Rng, len: u64| (0..len).map(|_| word(r)).collect::<Vec<_>>().join(" ");
            let (short_len, long_len) = (rng.below(8), 10 + rng.below(60));
            let (short, long) = (text(rng, short_len), text(rng, long_len));
            let many: Vec<String> = (0..rng.below(40))
                .map(|k| format!("\"k{k}\":{k}"))
                .collect();
            let ints: Vec<String> = (0..rng.below(300))
                .map(|k| (k as i64 * (rng.below(1 << 20) as i64 - (1 << 19))).to_string())
                .collect();
            json.push_str(&format!(
                "{{\"id\":{i},\"s\":\"{short}\",\"long\":\"{long}\",\"f\":{}.{},\
                 \"g\":-{}.5e-3,\"u\":{},\"big\":-{}123456789012345678901,\"wide\":{},\"tags\":[\"{}\",\"{}\",{}],\
                 \"nested\":{{\"a\":[{}],\"{}\":true}},\"many\":{{{}}},\"ints\":[{}]}}",
                rng.below(1000),
                rng.below(100),
                rng.below(100),
                u64::MAX - rng.below(10),
                1 + rng.below(9),
                rng.next() >> rng.below(64),
                word(rng),
                word(rng),
                rng.below(100),
                ints.len(),
                word(rng),
                many.join(","),
                ints.join(","),
            ));
        }
        json.push(']');
        crate::json::from_json(json.as_bytes()).unwrap_or_else(|e| panic!("{e}: {json}"))
    }

    /// `doc`, holding a shape of `keys` whose slots (of `w` bytes) start
    /// at `slots`, is valid if the keys are distinct, else rejected as a
    /// duplicate key at the slot of the first repeated one.
    fn assert_first_duplicate_reported<K: PartialEq + std::fmt::Debug>(
        doc: &[u8],
        keys: &[K],
        slots: usize,
        w: usize,
    ) {
        let first_dup = (1..keys.len()).find(|&i| keys[..i].contains(&keys[i]));
        let got = validate(doc);
        match first_dup {
            None => assert!(got.is_ok(), "{got:?} for {keys:?}"),
            Some(i) => {
                let e = got.expect_err("a duplicate key");
                assert_eq!(e.kind(), &ErrorKind::DuplicateKey, "{keys:?}");
                assert_eq!(e.offset(), Some((slots + i * w) as u64), "{keys:?}");
            }
        }
    }

    /// [`same`] on `doc` and on `copies` damaged copies of it (at most `flips`
    /// random byte changes each).
    fn same_when_damaged(rng: &mut Rng, doc: &[u8], copies: usize, flips: u64) {
        same(doc);
        for _ in 0..copies {
            same(&damaged(rng, doc, flips));
        }
    }

    fn same(bytes: &[u8]) {
        let full = validate_with::<FULL>(bytes);
        for fast in [
            validate_with::<PORTABLE>(bytes),
            validate_with::<AUTO>(bytes),
        ] {
            match (&fast, &full) {
                (Ok(()), Ok(())) => {}
                (Err(a), Err(b)) if a.kind() == b.kind() && a.offset() == b.offset() => {}
                _ => panic!("fast path {fast:?}, full checker {full:?}"),
            }
        }
    }

    /// Shapes of up to 8 keys (compared, not hashed, when short) and of 9
    /// or more (hashed): a duplicate key is found, whichever way two keys
    /// are equal (one record, equal records, short or long, the
    /// empty-string constant and an empty record), at the first slot that
    /// repeats an earlier key.
    #[test]
    fn shape_duplicates() {
        let long = "x".repeat(70);
        // Key records: (bytes of the record, the key).
        let pool: Vec<(Vec<u8>, String)> = {
            let mut v = Vec::new();
            for k in ["a", "b", "a", "", "ab", "b"] {
                let mut r = vec![0x80 | k.len() as u8];
                r.extend_from_slice(k.as_bytes());
                v.push((r, k.to_string()));
            }
            for k in ["a", long.as_str(), long.as_str(), ""] {
                let mut r = vec![TAG_STR, k.len() as u8];
                r.extend_from_slice(k.as_bytes());
                v.push((r, k.to_string()));
            }
            v
        };
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..4_000 {
            let mut doc = b"RV\x01".to_vec();
            let mut at = Vec::new();
            for (r, _) in &pool {
                at.push(doc.len());
                doc.extend_from_slice(r);
            }
            let n = 1 + rng.below(12) as usize;
            // Key choice: an index into the pool, or None for the constant.
            let choice: Vec<Option<usize>> = (0..n)
                .map(|_| {
                    let c = rng.below(pool.len() as u64 + 1) as usize;
                    (c < pool.len()).then_some(c)
                })
                .collect();
            let base = doc.len();
            let w = 2usize;
            doc.push(TAG_SHAPE | 1);
            doc.push(n as u8);
            for c in &choice {
                let raw: u16 = match c {
                    None => (SPECIAL_EMPTY_STR << 2 | 3) as u16,
                    Some(c) => ((base - at[*c]) << 2) as u16,
                };
                doc.extend_from_slice(&raw.to_le_bytes());
            }
            let keys: Vec<&str> = choice
                .iter()
                .map(|c| c.map_or("", |c| pool[c].1.as_str()))
                .collect();
            if n > SHAPE_LINEAR_MAX {
                let t = (n + n / 2 + 1).next_power_of_two();
                let mut table = vec![0u8; t];
                for (i, k) in keys.iter().enumerate() {
                    let mut h = index_home(key_hash(k.as_bytes()), t);
                    while table[h] != 0 {
                        h = (h + 1) % t;
                    }
                    table[h] = i as u8 + 1;
                }
                doc.extend_from_slice(&table);
            }
            doc.extend_from_slice(&[0x1c, 0x0f, 0x1c]);
            assert_first_duplicate_reported(&doc, &keys, base + 2, w);
            same(&doc);
        }
    }

    /// A store-like record (short keys, strings, a timestamp, bytes, an
    /// array, a null), of a few dozen to a few hundred bytes.
    fn small_record(rng: &mut Rng) -> Vec<u8> {
        let mut e = crate::Encoder::new();
        e.begin_map().unwrap();
        e.key("identifier").unwrap();
        e.str(&"item ".repeat(1 + rng.below(20) as usize)).unwrap();
        e.key("createdAt").unwrap();
        let nanos = [0, 999_999_999, rng.below(1_000_000_000) as u32][rng.below(3) as usize];
        let offset =
            [None, Some(0), Some(-86_399), Some(86_399), Some(3600)][rng.below(5) as usize];
        e.timestamp(crate::Timestamp {
            seconds: rng.next() as i64 >> rng.below(64),
            nanos,
            offset,
        })
        .unwrap();
        e.key("data").unwrap();
        e.bytes(&vec![b'd'; rng.below(200) as usize]).unwrap();
        e.key("views").unwrap();
        e.i64(rng.next() as i64 >> rng.below(64)).unwrap();
        e.key("rect").unwrap();
        e.begin_array().unwrap();
        for _ in 0..rng.below(6) {
            e.i64(rng.below(1000) as i64).unwrap();
        }
        e.end_array().unwrap();
        e.key("opt").unwrap();
        e.null().unwrap();
        e.end_map().unwrap();
        e.finish().unwrap()
    }

    /// A copy of `doc` with 1 to `most` bytes bit-flipped or overwritten.
    fn damaged(rng: &mut Rng, doc: &[u8], most: u64) -> Vec<u8> {
        let mut bad = doc.to_vec();
        for _ in 0..1 + rng.below(most) {
            let i = rng.below(bad.len() as u64) as usize;
            if rng.below(2) == 0 {
                bad[i] ^= 1 << rng.below(8);
            } else {
                bad[i] = rng.next() as u8;
            }
        }
        bad
    }

    /// Many shapes, referred to again after they left the shape cache (the
    /// fast modes find them in their list of shapes), in documents small
    /// and large, and one with more shapes than the list holds: the modes
    /// agree, valid or corrupted.
    #[test]
    fn many_shapes_agree() {
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
        for (maps, kinds) in [(6, 5), (40, 13), (400, 61), (3000, 500), (2000, 2000)] {
            let items: Vec<String> = (0..maps)
                .map(|i| {
                    let k = (i * 7) % kinds;
                    format!("{{\"k{k}\":{i},\"x{}\":[{i}],\"s\":\"v{k}\"}}", k % 3)
                })
                .collect();
            let json = format!("[{}]", items.join(","));
            let doc = crate::json::from_json(json.as_bytes()).unwrap();
            validate(&doc).unwrap();
            same_when_damaged(&mut rng, &doc, 300, 2);
        }
    }

    /// Shapes of up to 8 short-string keys (the fast modes take them) of
    /// each slot width, keys equal or differing in length, in their first
    /// 7 bytes or only after, the empty-string constant: the fast and full
    /// modes agree, valid (distinct keys) or not, and on damaged copies.
    #[test]
    fn small_shapes_agree() {
        let pool = [
            "",
            "a",
            "b",
            "data",
            "hash",
            "optionalString",
            "optionalStrinG",
            "optionalString",
            "abcdefgh",
            "abcdefgX",
            "abcdefg",
            "views",
            "",
        ];
        let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
        for round in 0..3_000 {
            let w = [1usize, 2, 4, 8][round % 4];
            let n = rng.below(SHAPE_LINEAR_MAX as u64 + 1) as usize;
            let mut doc = b"RV\x01".to_vec();
            let mut at = Vec::new();
            for k in pool {
                at.push(doc.len());
                doc.push(TAG_SHORT_STR | k.len() as u8);
                doc.extend_from_slice(k.as_bytes());
            }
            let base = doc.len();
            // A key: a record of the pool, or None for the constant.
            let choice: Vec<Option<usize>> = (0..n)
                .map(|_| {
                    let c = rng.below(pool.len() as u64 + 1) as usize;
                    (c < pool.len()).then_some(c)
                })
                .collect();
            let raws: Vec<u64> = choice
                .iter()
                .map(|c| match c {
                    None => SPECIAL_EMPTY_STR << 2 | 3,
                    Some(c) => ((base - at[*c]) << 2) as u64,
                })
                .collect();
            if raws.iter().any(|&r| w < 8 && r >> (8 * w) != 0) {
                continue;
            }
            doc.push(TAG_SHAPE | w.trailing_zeros() as u8);
            doc.push(n as u8);
            for r in &raws {
                doc.extend_from_slice(&r.to_le_bytes()[..w]);
            }
            doc.extend_from_slice(&[0x1c, 0x0f, 0x1c]);
            let keys: Vec<&str> = choice.iter().map(|c| c.map_or("", |c| pool[c])).collect();
            assert_first_duplicate_reported(&doc, &keys, base + 2, w);
            same_when_damaged(&mut rng, &doc, 20, 2);
        }
    }

    /// Small documents (validated through a padded copy): the fast path
    /// and the full checker agree on them, valid or corrupted.
    #[test]
    fn small_documents_agree() {
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        for _ in 0..300 {
            let doc = small_record(&mut rng);
            validate(&doc).unwrap();
            same_when_damaged(&mut rng, &doc, 200, 2);
        }
    }

    /// The fast path accepts exactly what the full checker accepts, and
    /// reports the same first error, on corrupted documents.
    #[test]
    fn fast_path_agrees_with_full_checker() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for round in 0..12 {
            let doc = mixed_doc(&mut rng, 1 + round);
            validate(&doc).unwrap();
            same_when_damaged(&mut rng, &doc, 3_000, 3);
        }
    }
}
