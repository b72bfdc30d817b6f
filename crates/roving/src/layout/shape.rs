//! Shape records (shared key lists): the header, key slots, the hash index
//! (its size, entry width and home positions) and the key hash.

use super::record::str_record;
use super::root::allows_v2;
use super::slot::{read_slot, slot_pos, Slot, SPECIAL_EMPTY_STR};
use super::str_array::{StrArray, KEYS_BY_LENGTH};
use super::tags::{is_shape, tag_width, TAG_PACKED_SHAPE};
use super::varint::read_varint;

/// Shapes with more keys than this carry a hash index.
pub const SHAPE_LINEAR_MAX: usize = 8;

/// Number of entries of the hash index of a shape with `count` keys:
/// the smallest power of two at least `count + count / 2 + 1`.
#[inline]
pub fn index_table_size(count: usize) -> usize {
    (count + count / 2 + 1).next_power_of_two()
}

/// Number of entries of the dense hash index of a packed shape with
/// `count` keys: `count + count / 4 + 1` (a load of at most 4/5, at least
/// one entry empty; section 6.18).
#[inline]
pub fn dense_table_size(count: usize) -> usize {
    count + count / 4 + 1
}

/// Home position of a key hash in a dense index of `table_size` entries:
/// the high 64 bits of `hash * table_size` (any size, no power of two
/// needed).
#[inline(always)]
pub fn dense_home(hash: u64, table_size: usize) -> usize {
    ((hash as u128 * table_size as u128) >> 64) as usize
}

/// Entry `i` of a hash index `table` of `E`-byte entries (0 = empty, else
/// key index + 1); `i` must be below the table's size.
#[inline(always)]
pub(crate) fn index_entry<const E: usize>(table: &[u8], i: usize) -> usize {
    let mut b = [0u8; 4];
    b[..E].copy_from_slice(&table[i * E..i * E + E]);
    u32::from_le_bytes(b) as usize
}

/// Byte width of each entry of a shape's hash index.
#[inline]
pub fn index_entry_width(count: usize) -> usize {
    if count < 0xFF {
        1
    } else if count < 0xFFFF {
        2
    } else {
        4
    }
}

// ---- key hash ----------------------------------------------------------

const HASH_SEED: u64 = 0x243F_6A88_85A3_08D3;
const HASH_MUL: u64 = 0x9E37_79B9_7F4A_7C15;

/// The key hash of shape indexes (see FORMAT.md, "Key hash").
///
/// Each 8-byte little-endian chunk `c` of the key (the last one zero-padded)
/// updates `h = rotl(h ^ c, 23) * 0x9E3779B97F4A7C15`, starting from
/// `0x243F6A8885A308D3`; then `h ^= len`, `h ^= h >> 32`,
/// `h *= 0x9E3779B97F4A7C15`, `h ^= h >> 29`.
#[inline]
pub fn key_hash(key: &[u8]) -> u64 {
    if key.len() <= 8 {
        return short_key_hash(short_word(key), key.len());
    }
    let mut h = HASH_SEED;
    let mut chunks = key.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h ^ u64::from_le_bytes(w))
            .rotate_left(23)
            .wrapping_mul(HASH_MUL);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = (h ^ short_word(rest))
            .rotate_left(23)
            .wrapping_mul(HASH_MUL);
    }
    hash_finish(h, key.len())
}

/// [`key_hash`] of a key of `len <= 8` bytes given as its [`short_word`].
#[inline(always)]
pub fn short_key_hash(word: u64, len: usize) -> u64 {
    let mut h = HASH_SEED;
    if len != 0 {
        h = (h ^ word).rotate_left(23).wrapping_mul(HASH_MUL);
    }
    hash_finish(h, len)
}

#[inline(always)]
fn hash_finish(mut h: u64, len: usize) -> u64 {
    h ^= len as u64;
    h ^= h >> 32;
    h = h.wrapping_mul(HASH_MUL);
    h ^ (h >> 29)
}

/// The first `min(len, 8)` bytes of `b` as a little-endian `u64`, zero
/// padded: at most two loads and no call to `memcpy` (keys of up to 8 bytes
/// are hashed and compared as one word).
#[inline(always)]
pub fn short_word(b: &[u8]) -> u64 {
    if let Some(c) = b.first_chunk::<8>() {
        return u64::from_le_bytes(*c);
    }
    let n = b.len();
    if let (Some(lo), Some(hi)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        // Two overlapping 4-byte loads; the overlap holds the same bytes.
        let lo = u32::from_le_bytes(*lo) as u64;
        let hi = u32::from_le_bytes(*hi) as u64;
        return lo | (hi << ((n - 4) * 8));
    }
    match *b {
        [] => 0,
        [a] => a as u64,
        [a, b] => a as u64 | (b as u64) << 8,
        [a, b, c, ..] => a as u64 | (b as u64) << 8 | (c as u64) << 16,
    }
}

/// The [`short_word`] of the `len <= 8` bytes at `pos`, if in bounds: one
/// load and a mask when 8 bytes are readable there.
#[inline(always)]
pub fn short_word_at(buf: &[u8], pos: usize, len: usize) -> Option<u64> {
    if let Some(c) = buf.get(pos..).and_then(|b| b.first_chunk::<8>()) {
        if len <= 8 {
            let mask = u64::MAX.checked_shr(((8 - len) * 8) as u32).unwrap_or(0);
            return Some(u64::from_le_bytes(*c) & mask);
        }
    }
    Some(short_word(buf.get(pos..pos.checked_add(len)?)?))
}

/// Byte equality, inlined for short keys (no call to `memcmp`).
#[inline(always)]
pub fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 8 {
        return short_word(a) == short_word(b);
    }
    a == b
}

/// Home position of a key hash in an index of `table_size` (a power of two) entries.
#[inline]
pub fn index_home(hash: u64, table_size: usize) -> usize {
    (hash as usize) & (table_size - 1)
}

/// A decoded shape record header: the key list of one or more maps, with
/// its hash index. Kept small (the buffer is passed in) because it travels
/// inside every map header a reader decodes.
///
/// Either kind of shape record: key slots (`18`-`1B`), or packed keys
/// (`25`, `width` 0), whose string array header is decoded again from
/// `pos` when a key is read ([`Self::packed`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Position of the shape record.
    pub(crate) pos: usize,
    /// Position of the first key slot; of a packed shape, of its index
    /// (right after the keys' bytes).
    keys: usize,
    /// Number of keys.
    pub(crate) count: usize,
    /// Key slot width in bytes; 0 for a packed shape.
    width: u8,
    /// A packed shape's key order bits ([`KEYS_BY_LENGTH`],
    /// [`KEYS_BY_BYTES`](super::KEYS_BY_BYTES); such a shape has no index), else 0.
    order: u8,
}

impl Shape {
    /// The shape of the empty map (no record): no keys.
    pub(crate) const EMPTY: Shape = Shape {
        pos: 0,
        keys: 0,
        count: 0,
        width: 1,
        order: 0,
    };

    /// The header of the shape record at `pos`, if one starts there and
    /// its key count decodes (and is at most the buffer's length). A packed
    /// shape's keys must lie within `buf` (its index is not checked).
    #[inline]
    pub(crate) fn at(buf: &[u8], pos: usize) -> Option<Shape> {
        let tag = *buf.get(pos)?;
        if !is_shape(tag) {
            return Self::packed_at(buf, pos);
        }
        let (count, keys) = read_varint(buf, pos + 1)?;
        // A count beyond the buffer length cannot be valid; refusing it here
        // keeps all later arithmetic in range even for unvalidated bytes.
        Some(Shape {
            pos,
            keys,
            count: usize::try_from(count).ok().filter(|&c| c <= buf.len())?,
            width: tag_width(tag) as u8,
            order: 0,
        })
    }

    /// [`Self::at`] for a packed shape (out of line: the common shape's
    /// decoding stays small).
    #[inline(never)]
    fn packed_at(buf: &[u8], pos: usize) -> Option<Shape> {
        // A version 2 record: not a shape in a version 1 document.
        if !allows_v2(buf) {
            return None;
        }
        let (sa, order) = StrArray::with_order(buf, pos, TAG_PACKED_SHAPE)?;
        Some(Shape {
            pos,
            keys: sa.end(),
            count: sa.count,
            width: 0,
            order,
        })
    }

    /// True for a packed shape (`25`).
    #[inline(always)]
    pub(crate) fn is_packed(&self) -> bool {
        self.width == 0
    }

    /// The string array header of a packed shape's keys (`None` for a
    /// shape with key slots).
    #[inline]
    pub(crate) fn packed(&self, buf: &[u8]) -> Option<StrArray> {
        if !self.is_packed() {
            return None;
        }
        StrArray::at_tag(buf, self.pos, TAG_PACKED_SHAPE)
    }

    /// Width in bytes of the key slots.
    #[inline(always)]
    pub(crate) fn slot_width(&self) -> usize {
        self.width as usize
    }

    /// Position of key slot `i`.
    #[inline(always)]
    pub(crate) fn key_slot(&self, i: usize) -> usize {
        slot_pos(self.keys, i, self.width as usize)
    }

    /// Key slot `i`, decoded.
    #[inline(always)]
    pub(crate) fn read_key_slot(&self, buf: &[u8], i: usize) -> Option<Slot> {
        if self.is_packed() {
            return None;
        }
        read_slot(buf, self.key_slot(i), self.width as usize, self.pos)
    }

    /// Position of the hash index (right after the key slots).
    #[inline(always)]
    pub(crate) fn index_pos(&self) -> usize {
        self.keys + self.count * self.width as usize
    }

    /// End of the shape record.
    pub(crate) fn end(&self) -> usize {
        self.index_pos() + self.table_size() * index_entry_width(self.count)
    }

    /// Bytes of key `i`.
    #[inline(always)]
    pub(crate) fn key_bytes<'a>(&self, buf: &'a [u8], i: usize) -> Option<&'a [u8]> {
        if self.is_packed() {
            return self.packed(buf)?.bytes(buf, i);
        }
        match self.read_key_slot(buf, i)? {
            Slot::Ref(p) => str_record(buf, p),
            Slot::Special(SPECIAL_EMPTY_STR) => Some(&[]),
            _ => None,
        }
    }

    /// Position of the record of key `i` (`Some(None)` for the
    /// empty-string immediate; `None` for a malformed slot, and for every
    /// key of a packed shape, which has no records).
    pub(crate) fn key_record(&self, buf: &[u8], i: usize) -> Option<Option<usize>> {
        match self.read_key_slot(buf, i)? {
            Slot::Ref(p) => Some(Some(p)),
            Slot::Special(SPECIAL_EMPTY_STR) => Some(None),
            _ => None,
        }
    }

    /// The bytes of the hash index (`table_size()` entries of
    /// `index_entry_width(count)` bytes), if within `buf`.
    pub(crate) fn index_table<'a>(&self, buf: &'a [u8]) -> Option<&'a [u8]> {
        let len = self.table_size() * index_entry_width(self.count);
        buf.get(self.index_pos()..self.index_pos().checked_add(len)?)
    }

    /// Home entry of a key hash in this shape's index of `table` entries
    /// ([`Self::table_size`]): [`index_home`], or [`dense_home`] for a
    /// packed shape.
    #[inline(always)]
    pub(crate) fn home(&self, hash: u64, table: usize) -> usize {
        if self.is_packed() {
            dense_home(hash, table)
        } else {
            index_home(hash, table)
        }
    }

    /// Whether this is a packed shape whose keys are in order (by length,
    /// then bytes: [`KEYS_BY_LENGTH`]; by bytes: [`KEYS_BY_BYTES`](super::KEYS_BY_BYTES)), found
    /// by binary search: it has no index.
    #[inline(always)]
    pub(crate) fn order(&self) -> u8 {
        self.order
    }

    /// Number of entries of the hash index (0 for a shape without one).
    pub(crate) fn table_size(&self) -> usize {
        if self.order != 0 {
            0
        } else if self.count > SHAPE_LINEAR_MAX && self.is_packed() {
            dense_table_size(self.count)
        } else if self.count > SHAPE_LINEAR_MAX {
            index_table_size(self.count)
        } else {
            0
        }
    }
}

/// How key `a` compares with key `b` in the key order `order` of a
/// packed shape: [`KEYS_BY_LENGTH`] (shorter first, then by bytes) or
/// [`KEYS_BY_BYTES`](super::KEYS_BY_BYTES) (by bytes, a prefix first).
#[inline(always)]
pub(crate) fn key_order(order: u8, a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    if order == KEYS_BY_LENGTH {
        a.len().cmp(&b.len()).then_with(|| a.cmp(b))
    } else {
        a.cmp(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key hash as FORMAT.md states it, without the short-key fast path.
    fn reference_hash(key: &[u8]) -> u64 {
        let mut h = HASH_SEED;
        for c in key.chunks(8) {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            h = (h ^ u64::from_le_bytes(w))
                .rotate_left(23)
                .wrapping_mul(HASH_MUL);
        }
        h ^= key.len() as u64;
        h ^= h >> 32;
        h = h.wrapping_mul(HASH_MUL);
        h ^ (h >> 29)
    }

    #[test]
    fn key_hash_matches_the_spec_at_every_length() {
        let bytes: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect();
        for n in 0..bytes.len() {
            assert_eq!(
                key_hash(&bytes[..n]),
                reference_hash(&bytes[..n]),
                "length {n}"
            );
        }
    }

    #[test]
    fn short_words() {
        let bytes: Vec<u8> = (1..=12u8).collect();
        for n in 0..=8 {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(short_word(&bytes[..n]), u64::from_le_bytes(w), "length {n}");
            assert_eq!(short_word_at(&bytes, 0, n), Some(u64::from_le_bytes(w)));
            // Near the end of the buffer (no 8-byte load possible).
            let tail = &bytes[12 - n..];
            assert_eq!(short_word_at(tail, 0, n), Some(short_word(tail)));
            assert_eq!(
                short_key_hash(short_word(&bytes[..n]), n),
                reference_hash(&bytes[..n])
            );
        }
        assert_eq!(short_word_at(&bytes, 10, 3), None);
        assert_eq!(short_word_at(&bytes, usize::MAX, 3), None);
    }

    #[test]
    fn bytes_eq_agrees_with_slices() {
        let cases: [(&[u8], &[u8]); 6] = [
            (b"", b""),
            (b"a", b"a"),
            (b"a", b"b"),
            (b"name", b"nam"),
            (b"12345678", b"12345678"),
            (b"123456789", b"123456780"),
        ];
        for (a, b) in cases {
            assert_eq!(bytes_eq(a, b), a == b);
        }
    }
}
