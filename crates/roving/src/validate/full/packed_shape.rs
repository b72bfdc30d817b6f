//! Packed shape records (`25`, format version 2): the rules of
//! `docs/FORMAT.md` section 16.1, rule 22.

use super::*;

impl Validator<'_, '_> {
    /// Validates the packed shape record at `pos`; returns the position
    /// after it. Its keys are checked as a string array's (in a version 2
    /// document, UTF-8, tiling their data), then that they are distinct
    /// and, with more than [`SHAPE_LINEAR_MAX`] keys, the dense hash index
    /// after them: O(record length), each key hashed once. Keys flagged in
    /// order are instead each compared with the one before (no index).
    pub(super) fn packed_shape(&mut self, pos: usize) -> Result<usize> {
        let keys_end = self.str_array(pos)?;
        let buf = self.buf;
        let shape = Shape::at(buf, pos).ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        let count = shape.count;
        let end = self.index_end(&shape, keys_end)?;
        let keys = shape
            .packed(buf)
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        if shape.order() != 0 {
            self.ordered_keys(&shape, keys, pos)?;
            self.checked_shape(pos, count)?;
            return Ok(end);
        }
        // In bounds and in order: `str_array` checked the ends. (Block by
        // block: a key costs its hash and a few instructions.)
        let mut hashes: Vec<u64> = Vec::with_capacity(count);
        StrArrayBytes::new(buf, keys).try_each(|k| {
            hashes.push(key_hash(k.unwrap_or(&[])));
            Ok::<(), Error>(())
        })?;
        self.distinct_keys(&shape, &hashes, keys_end, pos, 0)?;
        self.checked_shape(pos, count)?;
        Ok(end)
    }

    /// Checks that the keys `keys` of the packed shape `shape` at `pos`,
    /// whose widths byte says they are in order, are strictly increasing
    /// in that order: one comparison per key, so they are distinct.
    fn ordered_keys(&self, shape: &Shape, keys: StrArray, pos: usize) -> Result<()> {
        use std::cmp::Ordering::*;
        let mut prev: Option<&[u8]> = None;
        StrArrayBytes::new(self.buf, keys).try_each(|k| {
            let k = k.unwrap_or(&[]);
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            match prev.map(|p| (p, key_order(shape.order(), p, k))) {
                Some((_, Equal)) => {
                    return Err(Error::at(ErrorKind::DuplicateKey, pos)
                        .with_message(format!("the key {:?} twice", text(k))));
                }
                Some((p, Greater)) => {
                    return Err(Error::at(ErrorKind::BadIndex, pos).with_message(format!(
                        "a packed shape's keys said to be in order are not: {:?} before {:?}",
                        text(p),
                        text(k)
                    )));
                }
                _ => {}
            }
            prev = Some(k);
            Ok(())
        })
    }
}
