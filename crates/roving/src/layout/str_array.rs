//! String array records (`22`, format version 2): an array of strings
//! packed back to back, with O(1) indexing (`docs/FORMAT.md` section 6.15).
//!
//! ```text
//! 22  varint n  varint L  u8 widths  starts (nb x W)  ends (n x V)  data (L bytes)
//! ```
//!
//! Strings are grouped in blocks of [`STR_ARRAY_BLOCK`]: block `b` starts
//! at `start[b]` in `data`, and string `i` (of block `i / 16`) ends
//! `end[i]` bytes after its block's start; it begins where string `i - 1`
//! ends, or at its block's start for the first string of a block.

use super::tags::{TAG_PACKED_SHAPE, TAG_STR_ARRAY, WIDTHS};
use super::varint::{read_uint, read_uint_fixed, read_varint, varint_len, write_varint};

/// Strings per block of a string array record.
pub const STR_ARRAY_BLOCK: usize = 16;

/// Bits of the widths byte that must be zero (bits 0-1: the width code of
/// the block starts, bits 2-3: of the ends).
pub const STR_ARRAY_RESERVED: u8 = 0xF0;

/// Bit of a packed shape's widths byte (reserved in a string array's)
/// saying that its keys are in increasing order of length, then of bytes,
/// and that it has no hash index (`docs/FORMAT.md` section 6.18).
pub const KEYS_BY_LENGTH: u8 = 0x10;

/// Bit of a packed shape's widths byte saying that its keys are in
/// increasing order of bytes, and that it has no hash index.
pub const KEYS_BY_BYTES: u8 = 0x20;

/// The header of a string array record, decoded: where its parts are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrArray {
    /// Number of strings `n`.
    pub(crate) count: usize,
    /// Position of the first block start (`W` bytes each).
    pub(crate) starts: usize,
    /// Position of the first end (`V` bytes each).
    pub(crate) ends: usize,
    /// Position of the data.
    pub(crate) data: usize,
    /// Length `L` of the data.
    pub(crate) data_len: usize,
    /// Width `W` of a block start in bytes (1, 2, 4 or 8).
    pub(crate) start_width: usize,
    /// Width `V` of an end in bytes (1, 2, 4 or 8).
    pub(crate) end_width: usize,
}

/// The key order bits of the widths byte `widths` of a record of tag
/// `tag`: those of a packed shape, if at most one is set; `None` if both
/// are; 0 for a string array.
#[inline(always)]
pub(crate) fn key_order_bits(tag: u8, widths: u8) -> Option<u8> {
    if tag != TAG_PACKED_SHAPE {
        return Some(0);
    }
    let order = widths & (KEYS_BY_LENGTH | KEYS_BY_BYTES);
    (order != KEYS_BY_LENGTH | KEYS_BY_BYTES).then_some(order)
}

/// Number of blocks of `n` strings.
#[inline(always)]
pub(crate) const fn str_array_blocks(n: usize) -> usize {
    n.div_ceil(STR_ARRAY_BLOCK)
}

/// Narrowest of the widths 1, 2, 4, 8 whose bytes hold `x`.
#[inline]
pub(crate) fn uint_width(x: u64) -> usize {
    match x {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFFFF_FFFF => 4,
        _ => 8,
    }
}

impl StrArray {
    /// The string array record at `pos`: `None` if it is not one, its
    /// header does not decode (a bad varint, a reserved bit of the widths
    /// byte set), or it does not end within `buf`. Its contents (starts,
    /// ends, UTF-8) are not checked.
    #[inline]
    pub(crate) fn at(buf: &[u8], pos: usize) -> Option<StrArray> {
        Self::at_tag(buf, pos, TAG_STR_ARRAY)
    }

    /// [`Self::at`] for a record of tag `tag` laid out as a string array
    /// after its tag: a string array (`22`) or the keys of a packed shape
    /// (`25`, whose index follows them: see `layout::Shape`).
    #[inline]
    pub(crate) fn at_tag(buf: &[u8], pos: usize, tag: u8) -> Option<StrArray> {
        Self::with_order(buf, pos, tag).map(|(h, _)| h)
    }

    /// [`Self::at_tag`], and the key order bits of a packed shape's widths
    /// byte ([`KEYS_BY_LENGTH`] or [`KEYS_BY_BYTES`], at most one; 0 for a
    /// string array, where they are reserved).
    #[inline]
    pub(crate) fn with_order(buf: &[u8], pos: usize, tag: u8) -> Option<(StrArray, u8)> {
        if *buf.get(pos)? != tag {
            return None;
        }
        let (n, p) = read_varint(buf, pos + 1)?;
        let (l, p) = read_varint(buf, p)?;
        let widths = *buf.get(p)?;
        let order = key_order_bits(tag, widths)?;
        let h = Self::from_parts(n, l, widths & !order, p + 1)?;
        (h.end() <= buf.len()).then_some((h, order))
    }

    /// The parts of a record of `n` strings of `l` bytes in all, with the
    /// `widths` byte, whose block starts begin at `starts`: `None` if a
    /// reserved bit is set or a size overflows.
    #[inline]
    pub(crate) fn from_parts(n: u64, l: u64, widths: u8, starts: usize) -> Option<StrArray> {
        if widths & STR_ARRAY_RESERVED != 0 {
            return None;
        }
        let count = usize::try_from(n).ok()?;
        let data_len = usize::try_from(l).ok()?;
        let start_width = WIDTHS[(widths & 3) as usize];
        let end_width = WIDTHS[((widths >> 2) & 3) as usize];
        let ends = starts.checked_add(str_array_blocks(count).checked_mul(start_width)?)?;
        let data = ends.checked_add(count.checked_mul(end_width)?)?;
        data.checked_add(data_len)?;
        Some(StrArray {
            count,
            starts,
            ends,
            data,
            data_len,
            start_width,
            end_width,
        })
    }

    /// The position after the record's last byte.
    #[inline(always)]
    pub(crate) fn end(&self) -> usize {
        self.data + self.data_len
    }

    /// The start of block `b` (not checked against the data's length).
    #[inline(always)]
    pub(crate) fn block_start(&self, buf: &[u8], b: usize) -> Option<u64> {
        read_uint(buf, self.starts + b * self.start_width, self.start_width)
    }

    /// The end of string `i` from its block's start (not checked).
    #[inline(always)]
    pub(crate) fn rel_end(&self, buf: &[u8], i: usize) -> Option<u64> {
        read_uint(buf, self.ends + i * self.end_width, self.end_width)
    }

    /// The byte range of string `i` in the data (`lo..hi`): `None` past
    /// the end, or (in a document not validated) if its bounds are out of
    /// order or beyond the data.
    #[inline(always)]
    pub(crate) fn range(&self, buf: &[u8], i: usize) -> Option<(usize, usize)> {
        if i >= self.count {
            return None;
        }
        let s = self.block_start(buf, i / STR_ARRAY_BLOCK)?;
        let e = self.rel_end(buf, i)?;
        let b = if i % STR_ARRAY_BLOCK == 0 {
            0
        } else {
            self.rel_end(buf, i - 1)?
        };
        let (lo, hi) = (s.checked_add(b)?, s.checked_add(e)?);
        if lo > hi || hi > self.data_len as u64 {
            return None;
        }
        Some((lo as usize, hi as usize))
    }

    /// The bytes of string `i` (not checked for UTF-8), as [`Self::range`].
    #[inline(always)]
    pub(crate) fn bytes<'a>(&self, buf: &'a [u8], i: usize) -> Option<&'a [u8]> {
        let (lo, hi) = self.range(buf, i)?;
        buf.get(self.data + lo..self.data + hi)
    }
}

/// The strings of a string array record in order, read sequentially (one
/// load of an end per string, one of a start per block): the bytes of
/// each, `None` for a string whose bounds are out of order or beyond the
/// data (only in a document not validated).
#[derive(Clone, Debug)]
pub(crate) struct StrArrayBytes<'a> {
    /// The block starts, `start_width` bytes each (empty if the record
    /// does not lie within the buffer).
    starts: &'a [u8],
    /// The ends, `end_width` bytes each.
    ends: &'a [u8],
    /// The data.
    data: &'a [u8],
    start_width: usize,
    end_width: usize,
    /// Number of strings.
    count: usize,
    /// Index of the next string.
    next: usize,
    /// Start of the next string's block in the data.
    block: usize,
    /// End of the previous string from `block` (0 at a block's start).
    prev: usize,
}

impl<'a> StrArrayBytes<'a> {
    /// The strings of the record `h` of `buf`.
    pub(crate) fn new(buf: &'a [u8], h: StrArray) -> StrArrayBytes<'a> {
        let part = |lo: usize, hi: usize| buf.get(lo..hi).unwrap_or(&[]);
        StrArrayBytes {
            starts: part(h.starts, h.ends),
            ends: part(h.ends, h.data),
            data: part(h.data, h.end()),
            start_width: h.start_width,
            end_width: h.end_width,
            count: h.count,
            next: 0,
            block: 0,
            prev: 0,
        }
    }
}

/// The `width`-byte little-endian number at index `i` of `part`
/// (`usize::MAX` if it is not there or does not fit a `usize`).
#[inline(always)]
fn nth_uint(part: &[u8], i: usize, width: usize) -> usize {
    read_uint(part, i.saturating_mul(width), width)
        .and_then(|v| usize::try_from(v).ok())
        .unwrap_or(usize::MAX)
}

impl<'a> Iterator for StrArrayBytes<'a> {
    type Item = Option<&'a [u8]>;

    #[inline]
    fn next(&mut self) -> Option<Option<&'a [u8]>> {
        let i = self.next;
        if i >= self.count {
            return None;
        }
        self.next = i + 1;
        if i % STR_ARRAY_BLOCK == 0 {
            self.block = nth_uint(self.starts, i / STR_ARRAY_BLOCK, self.start_width);
            self.prev = 0;
        }
        let e = nth_uint(self.ends, i, self.end_width);
        let (lo, hi) = (
            self.block.saturating_add(self.prev),
            self.block.saturating_add(e),
        );
        self.prev = e;
        // (Out of order or beyond the data: only in a document not validated.)
        Some(if lo <= hi {
            self.data.get(lo..hi)
        } else {
            None
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count - self.next;
        (n, Some(n))
    }
}

impl<'a> StrArrayBytes<'a> {
    /// Calls `f` with each remaining string in order (as [`next`] gives
    /// them) and stops at its first error: a loop per block, with the
    /// width of the ends fixed, so a string costs a few instructions.
    ///
    /// [`next`]: Iterator::next
    pub(crate) fn try_each<E>(
        mut self,
        mut f: impl FnMut(Option<&'a [u8]>) -> Result<(), E>,
    ) -> Result<(), E> {
        // Whole blocks from a block's start; the strings before that one at
        // a time.
        while self.next % STR_ARRAY_BLOCK != 0 && self.next < self.count {
            f(self.next().flatten())?;
        }
        match self.end_width {
            1 => self.blocks::<1, E>(&mut f)?,
            2 => self.blocks::<2, E>(&mut f)?,
            4 => self.blocks::<4, E>(&mut f)?,
            _ => self.blocks::<8, E>(&mut f)?,
        }
        // (Only if the ends are cut short: a document not validated.)
        for _ in self.next..self.count {
            f(None)?;
        }
        Ok(())
    }

    /// The strings of the blocks from `self.next` (a block's first string)
    /// on, with ends of `V` bytes; `self.next` is left after the last one
    /// given.
    #[inline(always)]
    fn blocks<const V: usize, E>(
        &mut self,
        f: &mut impl FnMut(Option<&'a [u8]>) -> Result<(), E>,
    ) -> Result<(), E> {
        let ends = self
            .ends
            .get(self.next.saturating_mul(V)..self.count.saturating_mul(V).min(self.ends.len()))
            .unwrap_or(&[]);
        let first_block = self.next / STR_ARRAY_BLOCK;
        for (b, block) in ends.chunks(STR_ARRAY_BLOCK * V).enumerate() {
            let start = nth_uint(self.starts, first_block + b, self.start_width);
            let mut prev = 0usize;
            for end in block.chunks_exact(V) {
                let e = usize::try_from(read_uint_fixed::<V>(end)).unwrap_or(usize::MAX);
                let (lo, hi) = (start.saturating_add(prev), start.saturating_add(e));
                prev = e;
                self.next += 1;
                f(if lo <= hi {
                    self.data.get(lo..hi)
                } else {
                    None
                })?;
            }
        }
        Ok(())
    }
}

impl ExactSizeIterator for StrArrayBytes<'_> {}

/// The widths `(W, V)` of the block starts and the ends of a string array
/// of strings of lengths `lens`: the narrowest that hold them.
pub(crate) fn str_array_widths(lens: &[usize]) -> (usize, usize) {
    let (mut start, mut longest_block) = (0u64, 0u64);
    let mut last_start = 0u64;
    for block in lens.chunks(STR_ARRAY_BLOCK) {
        let total: u64 = block.iter().map(|&l| l as u64).sum();
        last_start = start;
        longest_block = longest_block.max(total);
        start += total;
    }
    (uint_width(last_start), uint_width(longest_block))
}

/// Size in bytes of the string array record of strings of lengths `lens`
/// (`data_len` bytes in all) at the narrowest widths.
pub(crate) fn str_array_size(lens: &[usize], data_len: usize) -> usize {
    let (w, v) = str_array_widths(lens);
    let n = lens.len();
    2 + varint_len(n as u64)
        + varint_len(data_len as u64)
        + str_array_blocks(n) * w
        + n * v
        + data_len
}

/// Writes the head of a string array record (tag, counts, widths, block
/// starts and ends: all but the data) of strings of lengths `lens`
/// (`data_len` bytes in all), at the narrowest widths, to `out`.
pub(crate) fn write_str_array_head(out: &mut Vec<u8>, lens: &[usize], data_len: usize) {
    write_packed_head(out, TAG_STR_ARRAY, lens, data_len, 0)
}

/// [`write_str_array_head`] with the tag `tag`: a string array's (`22`)
/// or a packed shape's (`25`), whose key order bit `order`
/// ([`KEYS_BY_LENGTH`], [`KEYS_BY_BYTES`] or 0) goes in the widths byte.
pub(crate) fn write_packed_head(
    out: &mut Vec<u8>,
    tag: u8,
    lens: &[usize],
    data_len: usize,
    order: u8,
) {
    let (w, v) = str_array_widths(lens);
    let code = |x: usize| WIDTHS.iter().position(|&y| y == x).unwrap_or(3) as u8;
    out.push(tag);
    write_varint(out, lens.len() as u64);
    write_varint(out, data_len as u64);
    out.push(code(w) | code(v) << 2 | order);
    let mut start = 0u64;
    for block in lens.chunks(STR_ARRAY_BLOCK) {
        out.extend_from_slice(&start.to_le_bytes()[..w]);
        start += block.iter().map(|&l| l as u64).sum::<u64>();
    }
    match v {
        1 => put_ends::<1>(out, lens),
        2 => put_ends::<2>(out, lens),
        4 => put_ends::<4>(out, lens),
        _ => put_ends::<8>(out, lens),
    }
}

/// Appends the ends of the strings of lengths `lens` (each counted from
/// its block's start), `V` bytes each (they fit), a fixed-size copy each.
fn put_ends<const V: usize>(out: &mut Vec<u8>, lens: &[usize]) {
    let at = out.len();
    out.resize(at + lens.len() * V, 0);
    let dst = out[at..].chunks_mut(V * STR_ARRAY_BLOCK);
    for (d, block) in dst.zip(lens.chunks(STR_ARRAY_BLOCK)) {
        let mut end = 0u64;
        for (d, &l) in d.chunks_exact_mut(V).zip(block) {
            end += l as u64;
            if let (Some(d), Some(b)) = (
                d.first_chunk_mut::<V>(),
                end.to_le_bytes().first_chunk::<V>(),
            ) {
                *d = *b;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record written from some strings reads them back, whatever the
    /// widths; its size is as computed.
    #[test]
    fn written_records_read_back() {
        let cases: Vec<Vec<String>> = vec![
            vec!["a".into()],
            (0..17).map(|i| format!("s{i}")).collect(),
            vec!["".into(), "é".into(), "".into()],
            (0..40).map(|i| "x".repeat(i * 9)).collect(),
            (0..3).map(|i| "y".repeat(300 + i)).collect(),
        ];
        for strings in cases {
            let lens: Vec<usize> = strings.iter().map(|s| s.len()).collect();
            let data: Vec<u8> = strings.iter().flat_map(|s| s.bytes()).collect();
            let mut out = vec![0u8; 3];
            write_str_array_head(&mut out, &lens, data.len());
            out.extend_from_slice(&data);
            assert_eq!(out.len() - 3, str_array_size(&lens, data.len()));
            let h = StrArray::at(&out, 3).unwrap();
            assert_eq!(h.end(), out.len());
            assert_eq!(h.count, strings.len());
            for (i, s) in strings.iter().enumerate() {
                assert_eq!(h.bytes(&out, i), Some(s.as_bytes()), "{i}");
            }
            let seq: Vec<Option<&[u8]>> = StrArrayBytes::new(&out, h).collect();
            let want: Vec<Option<&[u8]>> = strings.iter().map(|s| Some(s.as_bytes())).collect();
            assert_eq!(seq, want);
            for skip in [0, 1, 16, 17] {
                let mut each = Vec::new();
                let mut rest = StrArrayBytes::new(&out, h);
                rest.by_ref().take(skip).for_each(drop);
                rest.try_each(|s| {
                    each.push(s);
                    Ok::<(), ()>(())
                })
                .unwrap();
                assert_eq!(each, want.get(skip..).unwrap_or(&[]), "skip {skip}");
            }
            assert_eq!(h.bytes(&out, strings.len()), None);
            for cut in 3..out.len() {
                assert_eq!(StrArray::at(&out[..cut], 3), None);
            }
        }
    }

    /// Reserved bits of the widths byte, and sizes that overflow.
    #[test]
    fn bad_headers() {
        assert_eq!(StrArray::from_parts(1, 1, 0x10, 10), None);
        assert_eq!(StrArray::from_parts(u64::MAX, 0, 0x0F, 10), None);
        assert_eq!(StrArray::from_parts(1, u64::MAX, 0, 10), None);
        assert!(StrArray::from_parts(1, 1, 0x0F, 10).is_some());
    }
}
