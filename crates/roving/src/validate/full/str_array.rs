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
        self.utf8(h.data, end)?;
        let data = &buf[h.data..end];
        let len = data.len() as u64;
        // Where the last string so far ends in the data: the next block
        // starts there.
        let mut tiled = 0u64;
        for b in 0..h.blocks() {
            let start = h.block_start(buf, b).unwrap_or(u64::MAX);
            if start != tiled {
                return err(ErrorKind::BadLength, h.starts + b * h.start_width);
            }
            let first = b * STR_ARRAY_BLOCK;
            let mut last_end = 0u64;
            for i in first..h.count.min(first + STR_ARRAY_BLOCK) {
                let at = h.ends + i * h.end_width;
                let e = h.rel_end(buf, i).unwrap_or(u64::MAX);
                if e < last_end {
                    return err(ErrorKind::BadLength, at);
                }
                let stop = match start.checked_add(e) {
                    Some(s) if s <= len => s,
                    _ => return err(ErrorKind::BadLength, at),
                };
                if stop < len && is_continuation(data[stop as usize]) {
                    return err(ErrorKind::InvalidUtf8, h.data + stop as usize);
                }
                last_end = e;
            }
            tiled = start + last_end;
        }
        if tiled != len {
            return err(ErrorKind::BadLength, h.data + tiled as usize);
        }
        Ok(end)
    }
}
