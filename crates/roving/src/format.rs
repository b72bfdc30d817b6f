//! Constants of the roving v1 wire format: the header, record tags, slot
//! encodings and the key hash used by shape indexes.
//!
//! `docs/FORMAT.md` is the normative description; this module mirrors it.

/// The first two bytes of every document: ASCII `R`, `V`.
pub const MAGIC: [u8; 2] = *b"RV";
/// Major format version written and understood by this crate.
pub const VERSION: u8 = 1;
/// Length of the header (`MAGIC` + version byte).
pub const HEADER_LEN: usize = 3;

// ---- record tags -------------------------------------------------------

/// Signed 8-bit integer record.
pub const TAG_I8: u8 = 0x01;
/// Signed 16-bit integer record (little endian).
pub const TAG_I16: u8 = 0x02;
/// Signed 32-bit integer record (little endian).
pub const TAG_I32: u8 = 0x03;
/// Signed 64-bit integer record (little endian).
pub const TAG_I64: u8 = 0x04;
/// Unsigned 64-bit integer record, for values above `i64::MAX`.
pub const TAG_U64: u8 = 0x05;
/// Positive arbitrary-precision integer: varint length, magnitude LE.
pub const TAG_BIGINT_POS: u8 = 0x06;
/// Negative arbitrary-precision integer: varint length, magnitude LE.
pub const TAG_BIGINT_NEG: u8 = 0x07;
/// IEEE 754 binary32 record, used only when it is exact.
pub const TAG_F32: u8 = 0x08;
/// IEEE 754 binary64 record.
pub const TAG_F64: u8 = 0x09;
/// Decimal float: i8 exponent `e` (-22..=22), i32 mantissa `m`; the value is
/// the binary64 nearest to `m * 10^e` (computed exactly as one IEEE
/// multiplication or division, since `m` and `10^|e|` are exact doubles).
pub const TAG_F_DEC: u8 = 0x20;
/// Largest absolute exponent of a decimal float.
pub const F_DEC_MAX_EXP: i8 = 22;

/// The value of a decimal float record.
#[inline]
pub fn f_dec_value(mantissa: i32, exp: i8) -> f64 {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let p = POW10[(exp.unsigned_abs() as usize).min(22)];
    if exp < 0 {
        mantissa as f64 / p
    } else {
        mantissa as f64 * p
    }
}

/// Widens a binary32 to binary64 bit-exactly, NaN payloads included (a plain
/// `as f64` may set the quiet bit of a signalling NaN).
#[inline]
pub fn f32_to_f64_exact(f: f32) -> f64 {
    if !f.is_nan() {
        return f as f64;
    }
    let b = f.to_bits() as u64;
    f64::from_bits(((b >> 31) << 63) | (0x7FF << 52) | ((b & 0x7F_FFFF) << 29))
}

/// Narrows a binary64 to binary32 if that is exact, NaN payloads included
/// (the inverse of [`f32_to_f64_exact`]); `None` if it would round.
#[inline]
pub fn f64_to_f32_exact(f: f64) -> Option<f32> {
    if !f.is_nan() {
        let n = f as f32;
        return (n as f64 == f).then_some(n);
    }
    let b = f.to_bits();
    if b & ((1 << 29) - 1) != 0 {
        return None;
    }
    let m = (b >> 29) & 0x7F_FFFF;
    Some(f32::from_bits(
        ((b >> 63) << 31) as u32 | 0x7F80_0000 | m as u32,
    ))
}

/// Timestamp: i64 seconds, u32 nanoseconds.
pub const TAG_TIMESTAMP: u8 = 0x0A;
/// Timestamp with a UTC offset: i64 seconds, u32 nanoseconds, i32 offset seconds.
pub const TAG_TIMESTAMP_OFFSET: u8 = 0x0B;
/// UTF-8 string: varint length, bytes.
pub const TAG_STR: u8 = 0x0C;
/// Byte string: varint length, bytes.
pub const TAG_BYTES: u8 = 0x0D;
/// Extension: varint type id, varint length, bytes.
pub const TAG_EXT: u8 = 0x0E;
/// Typed numeric vector: element type, varint count, zero padding, data.
pub const TAG_VECTOR: u8 = 0x0F;
/// Array records, one tag per slot width (1, 2, 4, 8 bytes).
pub const TAG_ARRAY: u8 = 0x10;
/// Map records, one tag per slot width.
pub const TAG_MAP: u8 = 0x14;
/// Shape (shared key list) records, one tag per slot width.
pub const TAG_SHAPE: u8 = 0x18;
/// Root records, one tag per slot width; the last record of a document.
pub const TAG_ROOT: u8 = 0x1C;
/// First short-string tag: `0x80 + len` for strings of 0..=63 bytes.
pub const TAG_SHORT_STR: u8 = 0x80;
/// Longest string that uses a short-string tag.
pub const SHORT_STR_MAX: usize = 0x3F;

/// Slot widths in bytes, indexed by the low two bits of a container tag.
pub const WIDTHS: [usize; 4] = [1, 2, 4, 8];

/// Width code (0..=3) of a width in bytes.
#[inline]
pub const fn width_code(width: usize) -> u8 {
    match width {
        1 => 0,
        2 => 1,
        4 => 2,
        _ => 3,
    }
}

// ---- slots -------------------------------------------------------------

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

/// Shapes with more keys than this carry a hash index.
pub const SHAPE_LINEAR_MAX: usize = 8;

/// Number of entries of the hash index of a shape with `count` keys:
/// the smallest power of two at least `count + count / 2 + 1`.
#[inline]
pub fn index_table_size(count: usize) -> usize {
    (count + count / 2 + 1).next_power_of_two()
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

// ---- vectors -----------------------------------------------------------

/// Element type of a typed numeric vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ElemType {
    /// `i8`
    I8 = 0,
    /// `u8`
    U8 = 1,
    /// `i16`
    I16 = 2,
    /// `u16`
    U16 = 3,
    /// `i32`
    I32 = 4,
    /// `u32`
    U32 = 5,
    /// `i64`
    I64 = 6,
    /// `u64`
    U64 = 7,
    /// `f32`
    F32 = 8,
    /// `f64`
    F64 = 9,
}

impl ElemType {
    /// The element type for a code byte, if defined.
    pub fn from_code(code: u8) -> Option<ElemType> {
        use ElemType::*;
        Some(match code {
            0 => I8,
            1 => U8,
            2 => I16,
            3 => U16,
            4 => I32,
            5 => U32,
            6 => I64,
            7 => U64,
            8 => F32,
            9 => F64,
            _ => return None,
        })
    }

    /// Size of one element in bytes (also its alignment).
    pub fn size(self) -> usize {
        use ElemType::*;
        match self {
            I8 | U8 => 1,
            I16 | U16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }

    /// Short lowercase name (`"i8"`, `"f64"`, ...), as numpy-like dtype names.
    pub fn name(self) -> &'static str {
        use ElemType::*;
        match self {
            I8 => "i8",
            U8 => "u8",
            I16 => "i16",
            U16 => "u16",
            I32 => "i32",
            U32 => "u32",
            I64 => "i64",
            U64 => "u64",
            F32 => "f32",
            F64 => "f64",
        }
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

// ---- varints -----------------------------------------------------------

/// Appends `v` as an unsigned LEB128 varint.
#[inline]
pub fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Length in bytes of `v` as a varint.
#[inline]
pub fn varint_len(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Reads a canonical unsigned LEB128 varint at `pos`. Returns the value and
/// the position after it, or `None` if truncated, longer than 10 bytes,
/// overflowing 64 bits, or not minimal.
#[inline(always)]
pub fn read_varint(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
    let first = *buf.get(pos)?;
    if first < 0x80 {
        return Some((first as u64, pos + 1));
    }
    if let Some(&second) = buf.get(pos + 1) {
        if second < 0x80 && second != 0 {
            return Some((((second as u64) << 7) | (first & 0x7F) as u64, pos + 2));
        }
    }
    read_varint_long(buf, pos, first)
}

#[inline(never)]
fn read_varint_long(buf: &[u8], pos: usize, first: u8) -> Option<(u64, usize)> {
    let mut v = (first & 0x7F) as u64;
    let mut shift = 7;
    let mut p = pos + 1;
    loop {
        let b = *buf.get(p)?;
        p += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        v |= ((b & 0x7F) as u64) << shift;
        if b < 0x80 {
            if b == 0 {
                return None; // not minimal
            }
            return Some((v, p));
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Reads a little-endian unsigned integer of `width` (1, 2, 4 or 8) bytes.
#[inline(always)]
pub fn read_uint(buf: &[u8], pos: usize, width: usize) -> Option<u64> {
    // One 8-byte load and a mask when 8 bytes are readable (no branch on
    // the width): every slot but those at the very end of a buffer.
    if let Some(b) = buf.get(pos..).and_then(|b| b.first_chunk::<8>()) {
        // `width` is 1, 2, 4 or 8: the shift is 56, 48, 32 or 0.
        let mask = u64::MAX.wrapping_shr(64u32.wrapping_sub(8 * width as u32));
        return Some(u64::from_le_bytes(*b) & mask);
    }
    let b = buf.get(pos..pos.checked_add(width)?)?;
    Some(match width {
        1 => b[0] as u64,
        2 => u16::from_le_bytes([b[0], b[1]]) as u64,
        4 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64,
        _ => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
    })
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
