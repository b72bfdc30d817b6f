//! String array records (`22`, format version 2): the rules of
//! `docs/FORMAT.md` section 16.1, rule 19, in one pass over the record.

use super::*;

/// True for a UTF-8 continuation byte (`10xxxxxx`): no character starts there.
#[inline(always)]
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

impl Validator<'_, '_> {
    /// Validates the string array record at `pos`; returns the position
    /// after it. Only a version 2 document may hold one. The data is
    /// checked once as UTF-8, then each string's end (and each block's
    /// start) once: in bounds, in order, on a character boundary, the
    /// strings tiling the data. O(record length), overflow-safe.
    pub(super) fn str_array(&mut self, pos: usize) -> Result<usize> {
        let buf = self.buf;
        if !allows_v2(buf) {
            return Err(unknown_tag(buf, buf[pos], pos));
        }
        let (n, p) = self.varint(pos + 1)?;
        let (l, p) = self.varint(p)?;
        let widths = *buf
            .get(p)
            .ok_or_else(|| Error::at(ErrorKind::Truncated, p))?;
        // (A packed shape, laid out as a string array, may set one of its
        // key order bits.)
        let Some(order) = key_order_bits(buf[pos], widths) else {
            return err(ErrorKind::NonCanonical, p);
        };
        let widths = widths & !order;
        if widths & STR_ARRAY_RESERVED != 0 {
            return err(ErrorKind::NonCanonical, p);
        }
        let (w, v) = (
            WIDTHS[(widths & 3) as usize] as u64,
            WIDTHS[(widths >> 2 & 3) as usize] as u64,
        );
        let size = n
            .div_ceil(STR_ARRAY_BLOCK as u64)
            .checked_mul(w)
            .zip(n.checked_mul(v))
            .and_then(|(a, b)| a.checked_add(b))
            .and_then(|x| x.checked_add(l))
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        let end = self.span(p + 1, size, pos)?;
        // In bounds now, so no size overflows.
        let h = StrArray::from_parts(n, l, widths, p + 1)
            .filter(|h| h.end() == end)
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        // In ASCII every byte starts a character: no end needs checking.
        let ascii = is_ascii_long(&buf[h.data..end]);
        if !ascii {
            self.utf8(h.data, end)?;
        }
        match h.end_width {
            1 => str_array_ends::<1>(buf, &h, ascii),
            2 => str_array_ends::<2>(buf, &h, ascii),
            4 => str_array_ends::<4>(buf, &h, ascii),
            _ => str_array_ends::<8>(buf, &h, ascii),
        }?;
        Ok(end)
    }
}

/// Checks the block starts and the ends (of `V` bytes) of the string array
/// `h` of `buf`, whose data is valid UTF-8 (and ASCII if `ascii`): each
/// block starts where the previous one's last string ends, the ends of a
/// block do not decrease and stay within the data, each on a character
/// boundary, and the last string ends at the data's end.
#[inline(always)]
fn str_array_ends<const V: usize>(buf: &[u8], h: &StrArray, ascii: bool) -> Result<()> {
    let data = &buf[h.data..h.end()];
    let len = data.len() as u64;
    let ends = &buf[h.ends..h.data];
    // Where the last string so far ends in the data: the next block
    // starts there.
    let mut tiled = 0u64;
    for (b, block) in ends.chunks(STR_ARRAY_BLOCK * V).enumerate() {
        let start = h.block_start(buf, b).unwrap_or(u64::MAX);
        if start != tiled {
            return err(ErrorKind::BadLength, h.starts + b * h.start_width);
        }
        let mut last_end = 0u64;
        for (k, e) in block.chunks_exact(V).enumerate() {
            let e = read_uint_fixed::<V>(e);
            let at = || h.ends + (b * STR_ARRAY_BLOCK + k) * V;
            if e < last_end {
                return err(ErrorKind::BadLength, at());
            }
            let stop = match start.checked_add(e) {
                Some(s) if s <= len => s,
                _ => return err(ErrorKind::BadLength, at()),
            };
            if !ascii && stop < len && is_continuation(data[stop as usize]) {
                return err(ErrorKind::InvalidUtf8, h.data + stop as usize);
            }
            last_end = e;
        }
        tiled = start + last_end;
    }
    if tiled != len {
        return err(ErrorKind::BadLength, h.data + tiled as usize);
    }
    Ok(())
}
