//! Varints (unsigned LEB128, canonical) and little-endian unsigned integers.

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

/// The little-endian unsigned integer of the first `W` (1 to 8) bytes of
/// `c`, which has at least `W`: one load, the width fixed at compile time.
#[inline(always)]
pub(crate) fn read_uint_fixed<const W: usize>(c: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..W].copy_from_slice(&c[..W]);
    u64::from_le_bytes(b)
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
