//! Maps of numbers (`26`, format version 2): a map whose values are the
//! elements of one number array record instead of slots.
//!
//! ```text
//! 26  varint S  varint V       S: the shape, V: the number array of the values
//! ```
//!
//! Both references are encoded as a map record's shape reference
//! (`docs/FORMAT.md` section 6.11): even, the distance back from the
//! record's start; odd, an absolute offset. Value `i` is element `i` of the
//! number array, whose count is the shape's key count (section 6.19).

use super::numarray::{num_array_record, NumArrayParts};
use super::shape::Shape;
use super::slot::shape_target;
use super::tags::*;
use super::varint::{read_varint, write_varint};

/// The parts of a map record of numbers (see [`num_map_record`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NumMapParts {
    /// Its shape.
    pub(crate) shape: Shape,
    /// Position of the number array record of its values.
    pub(crate) values_at: usize,
    /// That number array record: one element per key of the shape.
    pub(crate) values: NumArrayParts,
    /// The position after the map record.
    pub(crate) end: usize,
}

/// The two references of the map record of numbers at `pos` (its tag is
/// not checked): the positions of its shape and of its values' record,
/// both before `pos`, and the position after the record.
#[inline(always)]
pub(crate) fn num_map_refs(buf: &[u8], pos: usize) -> Option<(usize, usize, usize)> {
    let (s, p) = read_varint(buf, pos.checked_add(1)?)?;
    let (v, end) = read_varint(buf, p)?;
    Some((shape_target(s, pos)?, shape_target(v, pos)?, end))
}

/// The map record of numbers at `pos`, if it is one, its shape reference
/// lands on a shape record and its values reference on a number array
/// record of as many elements as the shape has keys, in bounds. (Whether
/// the targets are record starts, and the document's version, are the
/// validator's to check.)
#[inline]
pub(crate) fn num_map_record(buf: &[u8], pos: usize) -> Option<NumMapParts> {
    if *buf.get(pos)? != TAG_NUM_MAP {
        return None;
    }
    let (shape_at, values_at, end) = num_map_refs(buf, pos)?;
    let shape = Shape::at(buf, shape_at)?;
    if !is_num_array(*buf.get(values_at)?) {
        return None;
    }
    let values = num_array_record(buf, values_at)?;
    (values.count == shape.count).then_some(NumMapParts {
        shape,
        values_at,
        values,
        end,
    })
}

/// Appends a map record of numbers whose shape reference is `shape_ref`
/// (the varint as a map record's, section 6.11) and whose values' number
/// array record is at `values`, before the output's end (a relative
/// reference).
pub(crate) fn write_num_map(out: &mut Vec<u8>, shape_ref: u64, values: usize) {
    let pos = out.len();
    debug_assert!(values < pos);
    out.push(TAG_NUM_MAP);
    write_varint(out, shape_ref);
    write_varint(out, ((pos - values) as u64) << 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The references read back as written, and a shape or values
    /// reference that does not land where the rules say is refused.
    #[test]
    fn refs_round_trip_and_bad_targets_are_refused() {
        // Header, the key "a" (81 61), a shape of it (18 01, a slot
        // referring 2 bytes back), numbers<u8> [7], then the map.
        let mut buf = vec![b'R', b'V', VERSION_2, 0x81, b'a', 0x18, 0x01, 2 << 2];
        let values = buf.len();
        buf.extend_from_slice(&[TAG_NUM_ARRAY + 1, 0x01, 0x07]);
        let pos = buf.len();
        write_num_map(&mut buf, ((pos - 5) as u64) << 1, values);
        let parts = num_map_record(&buf, pos).expect("decodes");
        assert_eq!(
            (parts.shape.count, parts.values_at, parts.end),
            (1, values, buf.len())
        );
        // The values reference pointing at the shape: refused.
        let mut bad = buf[..pos].to_vec();
        write_num_map(&mut bad, ((pos - 5) as u64) << 1, 5);
        assert!(num_map_record(&bad, pos).is_none());
        // A count that differs from the shape's: refused.
        let mut bad = buf.clone();
        bad[values + 1] = 0x00;
        assert!(num_map_record(&bad, pos).is_none());
    }
}
