//! Packed shape records (`25`, format version 2): the rules of
//! `docs/FORMAT.md` section 16.1, rule 22.

use super::*;

impl Validator<'_, '_> {
    /// Validates the packed shape record at `pos`; returns the position
    /// after it. Its keys are checked as a string array's (in a version 2
    /// document, UTF-8, tiling their data), then that they are distinct
    /// and, with more than [`SHAPE_LINEAR_MAX`] keys, the dense hash index
    /// after them: O(record length), each key hashed once.
    pub(super) fn packed_shape(&mut self, pos: usize) -> Result<usize> {
        let keys_end = self.str_array(pos)?;
        let buf = self.buf;
        let shape = Shape::at(buf, pos).ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
        let count = shape.count;
        let end = self.index_end(&shape, keys_end)?;
        let keys = shape
            .packed(buf)
            .ok_or_else(|| Error::at(ErrorKind::BadLength, pos))?;
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
}
