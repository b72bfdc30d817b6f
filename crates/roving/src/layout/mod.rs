//! The byte layout of the roving v1 format: the one place that knows where
//! things are in a document. The reader ([`crate::read`]), the validator
//! ([`mod@crate::validate`]) and the encoder ([`crate::encode`]) ask this
//! module; none of them decodes a tag, a slot or a header by itself.
//!
//! One file per concern:
//!
//! * `tags.rs`: the header, the tag constants, slot widths, and
//!   [`RecordKind`], the kind of record a tag byte starts (match on it with
//!   no catch-all arm: a new record type then makes the compiler list every
//!   place to update);
//! * `varint.rs`: varints and little-endian integers ([`read_varint`],
//!   [`read_uint`]);
//! * `slot.rs`: slot kinds, the special constants, the inline integer range;
//! * `record.rs`: where the payload of each record is ([`record_end`],
//!   [`ElemType`] for vectors), and the parts of a whole record (its end,
//!   slots, shape, element type and encoding label: `record_parts`);
//! * `scalar_slot.rs`: the fast path of decoders that build other objects
//!   from a whole document: the parts of array and map records, and a
//!   slot's value when it is a common scalar ([`scalar_slot()`]);
//! * `shape.rs`: the shape header, its hash index and the key hash;
//! * `str_array.rs`: string array records (version 2): their header,
//!   the bounds of each string, and writing one;
//! * `stride_array.rs`: stride array records (version 2): an array whose
//!   elements are the records right before it, at equal steps;
//! * `root.rs`: the trailer that locates the root record;
//! * `stream.rs`: record streams, many documents in one file: the stream
//!   header and the head of each frame;
//! * `float.rs`: decimal floats and exact binary32 conversions;
//! * `numarray.rs`: number array records (version 2): their element
//!   types ([`NumElem`]), header and elements;
//! * `num_map.rs`: map records of numbers (version 2), whose values are
//!   a number array record's elements;
//! * `dictionary.rs`: the dictionary binding record (version 2) that
//!   names the shared dictionary a document was written against;
//! * [`ext`]: the well-known extension type ids and their payload codecs.
//!
//! `docs/FORMAT.md` is the normative description; this module mirrors it.
//! It is also reachable as `roving::format`, its former name.

mod dictionary;
mod float;
mod num_map;
mod numarray;
mod record;
mod root;
mod scalar_slot;
mod shape;
mod slot;
mod str_array;
mod stream;
mod stride_array;
mod tags;
mod varint;

pub mod ext;

pub use dictionary::{
    binding_into, read_binding, write_binding, Binding, BASE_HEADER, TAG_DICT_BINDING,
};
pub use float::*;
pub use numarray::NumElem;
pub use record::{record_end, ElemType};
pub use scalar_slot::{
    array_record_parts, map_record_parts, scalar_slot, ArrayRecordParts, MapRecordParts, ScalarSlot,
};
pub use shape::{
    bytes_eq, dense_home, dense_table_size, index_entry_width, index_home, index_table_size,
    key_hash, short_key_hash, short_word, short_word_at, SHAPE_LINEAR_MAX,
};
pub use slot::{
    inline_int_range, special_slot, SLOT_ABS, SLOT_INT, SLOT_REL, SLOT_SPECIAL, SPECIAL_COUNT,
    SPECIAL_EMPTY_ARRAY, SPECIAL_EMPTY_MAP, SPECIAL_EMPTY_STR, SPECIAL_FALSE, SPECIAL_NULL,
    SPECIAL_TRUE,
};
pub use str_array::{KEYS_BY_BYTES, KEYS_BY_LENGTH, STR_ARRAY_BLOCK, STR_ARRAY_RESERVED};
pub use stream::{
    frame_head_len, is_stream, read_frame_head, read_stream_header, write_frame_head, FrameHead,
    FrameKind, MAX_FRAME_LEN, STREAM_HEADER, STREAM_HEADER_LEN, STREAM_MARK, STREAM_VERSION,
};
pub use stride_array::STRIDE_MAX;
pub use tags::*;
pub use varint::*;

pub(crate) use dictionary::dictionary_required;
pub use dictionary::has_binding;
pub(crate) use num_map::{num_map_record, write_num_map};
pub(crate) use numarray::{num_array_record, num_at, Num};
pub(crate) use record::{
    bytes_at, container_header, ext_record, fixed, header_fault, is_small_int, length_prefixed,
    map_header, map_shape_ref, record_fault, record_parts, small_int_record, str_record,
    timestamp_record, vector_data_start, vector_record, RecordParts, SlotRun,
};
pub(crate) use record::{empty_shape_rows_fault, shape_dims, shaped_vector_record};
pub(crate) use root::{allows_v2, doc_version, is_header, locate_root, root_slot};
pub(crate) use shape::{index_entry, key_order, Shape};
pub(crate) use slot::{decode_slot, read_slot, ref_target, shape_target, slot_pos, Slot};
pub(crate) use str_array::{
    key_order_bits, str_array_size, write_packed_head, write_str_array_head, StrArray,
    StrArrayBytes,
};
pub(crate) use stride_array::{stride_array_fault, write_stride_array, StrideArray};
