//! A dictionary's base, validated once: what scanning it leaves in a
//! validator (the starts of its records and its shapes), so that each
//! document bound to the dictionary is validated from the end of the base
//! on instead of from its header (`docs/FORMAT.md` section 23.3).
//!
//! A bound document reads as the plain document `B(n) ++ R`: the base of
//! the first `n` entries, then the document's records. Validating that
//! plain document scans the base first, which leaves two things behind:
//! the bitmap bits of the base's records, and the base's shapes (offset
//! and key count). The base's bytes are the same for every document, so a
//! [`BaseSeed`] keeps those two things, made once by validating the base,
//! and [`super::validate_after_base`] starts each scan with them. The base
//! of fewer entries is a prefix of the whole base, so one seed serves every
//! `n`: only its bits and shapes before `len(B(n))` are used.

use crate::layout::{
    is_value_tag, record_end, special_slot, RecordKind, Shape, HEADER_LEN, SPECIAL_NULL, TAG_ROOT,
};

use super::Validator;

/// The records of a validated dictionary base (see the module
/// documentation).
pub(crate) struct BaseSeed {
    /// A bit per base byte: the starts of its value records (its strings),
    /// the bitmap of the fast modes.
    values: Vec<u64>,
    /// The starts of all its records (strings and shapes), the bitmap of
    /// the full checker.
    all: Vec<u64>,
    /// The offset and key count of each shape record, in order.
    shapes: Vec<(usize, usize)>,
    /// The length of the base.
    len: usize,
}

impl BaseSeed {
    /// The seed of `base`, a dictionary's base (its header, then string
    /// and shape records); `None` if `base` followed by a root record is
    /// not a valid document, or holds other records.
    pub(crate) fn of(base: &[u8]) -> Option<BaseSeed> {
        let mut doc = Vec::with_capacity(base.len() + 3);
        doc.extend_from_slice(base);
        doc.extend_from_slice(&[TAG_ROOT, special_slot(SPECIAL_NULL) as u8, TAG_ROOT]);
        super::validate_with::<{ super::FULL }>(&doc, None).ok()?;
        let words = base.len() / 64 + 1;
        let mut seed = BaseSeed {
            values: vec![0; words],
            all: vec![0; words],
            shapes: Vec::new(),
            len: base.len(),
        };
        let mut pos = HEADER_LEN;
        while pos < base.len() {
            let tag = base[pos];
            let bit = 1u64 << (pos % 64);
            seed.all[pos / 64] |= bit;
            if is_value_tag(tag) {
                seed.values[pos / 64] |= bit;
            }
            match RecordKind::of(tag) {
                RecordKind::ShortStr | RecordKind::Str => {}
                RecordKind::Shape => seed.shapes.push((pos, Shape::at(base, pos)?.count)),
                _ => return None,
            }
            pos = record_end(base, pos)?;
        }
        (pos == base.len()).then_some(seed)
    }

    /// Whether the seed can start the scan of `buf` after its first
    /// `base_len` bytes: a prefix of the seed's base (the caller's
    /// contract: `buf` starts with that prefix) that ends before `buf`
    /// does, with no more shapes than the fast modes list for `buf`.
    pub(crate) fn covers(&self, buf: &[u8], base_len: usize) -> bool {
        let shapes = self.shapes_before(base_len);
        base_len >= HEADER_LEN
            && base_len <= self.len
            && base_len < buf.len()
            && shapes <= buf.len() / 64 + 4
    }

    /// How many of the shapes lie in the first `base_len` bytes (all of
    /// them for a document bound to every entry, the common case).
    #[inline]
    fn shapes_before(&self, base_len: usize) -> usize {
        if base_len >= self.len {
            return self.shapes.len();
        }
        self.shapes.partition_point(|&(p, _)| p < base_len)
    }

    /// Puts into `v` what scanning the first `base_len` bytes of its input
    /// leaves there: the bits of their records (the value records' or
    /// all, as `v`'s mode marks), and their shapes.
    pub(super) fn apply(&self, v: &mut Validator<'_, '_>, base_len: usize) {
        let bits = if v.value_only {
            &self.values
        } else {
            &self.all
        };
        let whole = base_len / 64;
        v.starts[..whole].copy_from_slice(&bits[..whole]);
        let rest = base_len % 64;
        if rest != 0 {
            v.starts[whole] |= bits[whole] & ((1u64 << rest) - 1);
        }
        for &(s, count) in &self.shapes[..self.shapes_before(base_len)] {
            if v.value_only {
                match v.sh.few.get_mut(v.sh.n) {
                    Some(e) => *e = (s, count),
                    None => v.shapes.push((s, count)),
                }
                v.sh.n += 1;
            }
            v.cache_shape(s, count);
        }
    }
}
