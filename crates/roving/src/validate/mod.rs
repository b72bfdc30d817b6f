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
//! timestamps, byte strings, number arrays of binary elements, shapes of
//! up to 8 short-string keys) with few
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

use hashbrown::{DefaultHashBuilder, HashMap};

use crate::error::{Error, ErrorKind, Result};
use crate::layout::*;

mod ascii;
mod base;
mod fast;
mod full;
mod slots;
#[cfg(test)]
mod tests;

pub(crate) use base::BaseSeed;
use fast::{fast_run, Avx2};
use slots::slots_ok;

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
    validate_with::<AUTO>(buf, None).map(drop)
}

/// [`validate`], and where the root record is: its slot width and
/// position (what `locate_root` gives), so that opening the document
/// does not look for it again.
pub(crate) fn validate_root(buf: &[u8]) -> Result<(usize, usize)> {
    validate_with::<AUTO>(buf, None)
}

/// [`validate`] of `buf`, the plain document of a bound one: a
/// dictionary's base of `base_len` bytes, which `seed` describes, then the
/// document's records (`docs/FORMAT.md` section 23.3). The base's records
/// are taken as checked (the seed was made by validating them), so the
/// scan starts after them; the result is [`validate_root`]'s.
pub(crate) fn validate_after_base(
    buf: &[u8],
    seed: &BaseSeed,
    base_len: usize,
) -> Result<(usize, usize)> {
    if !seed.covers(buf, base_len) {
        return validate_root(buf);
    }
    validate_with::<AUTO>(buf, Some((seed, base_len)))
}

/// [`validate`] through the full checker alone, without the fast path:
/// for the differential fuzz target, which checks that every path gives
/// the same verdict (feature `fuzzing` only; not part of the API).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub fn validate_full(buf: &[u8]) -> Result<()> {
    validate_with::<FULL>(buf, None).map(drop)
}

/// [`validate`] with the fast path's portable code (no AVX2), for the
/// differential fuzz target (feature `fuzzing` only; not part of the API).
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub fn validate_portable(buf: &[u8]) -> Result<()> {
    validate_with::<PORTABLE>(buf, None).map(drop)
}

/// How [`validate_with`] runs: every record through the full checker.
const FULL: u8 = 0;
/// The fast path, portable code only (no AVX2 even where available).
#[cfg(any(test, feature = "fuzzing"))]
const PORTABLE: u8 = 1;
/// The fast path, with AVX2 where the CPU has it.
const AUTO: u8 = 2;

/// [`validate`], with a choice of path ([`FULL`], `PORTABLE`, [`AUTO`])
/// for the tests: all must give the same result on every input. With
/// `after`, `buf` starts with the base that the seed describes, and the
/// scan starts after it ([`validate_after_base`]). Returns the root's
/// slot width and position.
fn validate_with<const MODE: u8>(
    buf: &[u8],
    after: Option<(&BaseSeed, usize)>,
) -> Result<(usize, usize)> {
    let root = locate_root(buf)?;
    let root_pos = root.1;
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
    // A bound document's base was checked when its seed was made: the
    // scan starts after it, with the base's records in the bitmap and its
    // shapes known.
    let start = match after {
        Some((seed, base_len)) => {
            seed.apply(&mut v, base_len);
            base_len
        }
        None => HEADER_LEN,
    };
    let r = v.scan::<MODE>(root_pos, start);
    if v.overrun || (MODE != FULL && r.is_err()) {
        // The fast path on the padded copy took a record that does not end
        // within the document, or the fast modes found the document
        // invalid: the full checker tells what is wrong (the fast modes'
        // bitmap cannot tell a bad reference from a wrong target).
        return validate_with::<FULL>(buf, after);
    }
    r.map(|()| root)
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
    if is_header(&buf[pos..]) {
        e.with_message(
            "another document starts here (its \"RV\" header): documents written one \
             after another cannot be read as one; a buffer or file holds one document",
        )
    } else {
        e
    }
}
