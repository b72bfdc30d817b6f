//! Map records of numbers (`26`, format version 2): the rules of
//! `docs/FORMAT.md` section 16.1, rule 23.

use super::*;

impl Validator<'_, '_> {
    /// Validates the map of numbers at `pos`; returns the position after
    /// it. Only a version 2 document may hold one. Its shape reference
    /// lands on a shape, as a map record's (rule 16), and its values
    /// reference on the start of a number array record before it, of one
    /// element per key of the shape. Both targets were checked already:
    /// O(1).
    pub(super) fn num_map(&mut self, pos: usize) -> Result<usize> {
        let buf = self.buf;
        if !allows_v2(buf) {
            return Err(unknown_tag(buf, buf[pos], pos)
                .with_message("a version 2 record in a version 1 document"));
        }
        let p = pos + 1;
        let (s, q) = self.varint(p)?;
        let (v, end) = self.varint(q)?;
        let shape = shape_target(s, pos).ok_or_else(|| Error::at(ErrorKind::BadReference, p))?;
        let count = self.shape_count(shape, p)?;
        let values = shape_target(v, pos).ok_or_else(|| Error::at(ErrorKind::BadReference, q))?;
        if !self.is_start(values) {
            return Err(Error::at(ErrorKind::BadReference, q)
                .with_message("a map's values are not at a record start"));
        }
        if !is_num_array(buf[values]) {
            return Err(Error::at(ErrorKind::WrongTarget, q)
                .with_message("a map's values are not a number array"));
        }
        match num_array_record(buf, values) {
            Some(a) if a.count == count => Ok(end),
            _ => Err(Error::at(ErrorKind::BadLength, pos).with_message(format!(
                "a map of numbers has {count} keys and another number of values"
            ))),
        }
    }
}
