//! ASCII checks of string bytes, word at a time or with SIMD loads.

/// True if every byte is ASCII (word at a time; strings here are short).
#[inline(always)]
pub(super) fn is_ascii(s: &[u8]) -> bool {
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
pub(super) fn ascii_prefix(s: &[u8; 64], len: usize) -> bool {
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
pub(super) unsafe fn ascii_prefix_avx2(s: &[u8; 64], len: usize) -> bool {
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
pub(super) fn is_ascii_long(s: &[u8]) -> bool {
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
