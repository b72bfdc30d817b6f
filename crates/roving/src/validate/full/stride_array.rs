//! Stride array records (`3B`, format version 2): the rules of
//! `docs/FORMAT.md` section 16.1, rule 21.

use super::*;

impl Validator<'_, '_> {
    /// Validates the stride array record at `pos`; returns the position
    /// after it. Only a version 2 document may hold one. Its count and
    /// stride decode, the stride is 1 to [`STRIDE_MAX`], and its elements
    /// are the `n` records right before it, each exactly `s` bytes long
    /// (from `pos - n * s` they tile the bytes up to `pos`), each a value
    /// record other than a stride array.
    ///
    /// Linear overall: a record lies in the span of at most one stride
    /// array (a stride array whose span held another's record would have
    /// that record as an element, which the last rule forbids), and each
    /// element costs one test of the bitmap and one header decode.
    pub(super) fn stride_array(&mut self, pos: usize) -> Result<usize> {
        let buf = self.buf;
        if !allows_v2(buf) {
            return Err(unknown_tag(buf, buf[pos], pos)
                .with_message("a version 2 record in a version 1 document"));
        }
        let (n, p) = self.varint(pos + 1)?;
        let (s, end) = self.varint(p)?;
        let Some(a) = StrideArray::at(buf, pos) else {
            return Err(stride_array_fault(buf, pos));
        };
        debug_assert_eq!((a.count as u64, a.stride as u64, a.end), (n, s, end));
        // A number array whose first two bytes (tag, one-byte count) are
        // element 0's has element 0's length: its header is not decoded
        // again (the common case, a matrix's rows).
        let head = |t: usize| match buf.get(t..t + 2) {
            Some(&[tag, count]) if is_num_array(tag) && count < 0x80 => Some([tag, count]),
            _ => None,
        };
        let first_head = head(a.first);
        for i in 0..a.count {
            let t = a.element(i);
            // t < pos < buf.len(): the elements lie before the record.
            if !self.is_start(t) || !is_value_tag(buf[t]) || buf[t] == TAG_STRIDE_ARRAY {
                return Err(
                    Error::at(ErrorKind::BadReference, pos + 1).with_message(format!(
                        "a stride array's element {i} (at {t}) is not the start of a value \
                     record other than a stride array"
                    )),
                );
            }
            let same_as_first = i > 0 && first_head.is_some() && head(t) == first_head;
            if !same_as_first && record_end(buf, t) != Some(t + a.stride) {
                return Err(Error::at(ErrorKind::BadLength, t).with_message(format!(
                    "a stride array's element {i} is not {} bytes long",
                    a.stride
                )));
            }
        }
        Ok(end)
    }
}
