//! The id of a dictionary: a 64-bit hash chained over its entries'
//! canonical bytes (`docs/FORMAT.md` section 23.2).

use super::Entry;
use crate::layout::{key_hash, write_varint};

/// `id_at(0)`: the key hash (section 8.2) of `roving dictionary`.
pub(super) const ID_START: u64 = 0xc8a3_4493_8c3f_de43;

/// The canonical bytes of an entry: `00` and the string's UTF-8, or `01`
/// and each key as a varint length and its UTF-8.
pub(super) fn entry_bytes(e: &Entry, out: &mut Vec<u8>) {
    match e {
        Entry::Str(s) => {
            out.push(0);
            out.extend_from_slice(s.as_bytes());
        }
        Entry::Shape(keys) => {
            out.push(1);
            for k in keys {
                write_varint(out, k.len() as u64);
                out.extend_from_slice(k.as_bytes());
            }
        }
    }
}

/// `id_at(n + 1)` from `id_at(n)` = `prev` and entry `n`: the key hash of
/// `prev` (8 bytes, little endian) followed by the entry's canonical bytes.
pub(super) fn next_id(prev: u64, e: &Entry) -> u64 {
    let mut b = prev.to_le_bytes().to_vec();
    entry_bytes(e, &mut b);
    key_hash(&b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn start_is_the_hash_of_its_name() {
        assert_eq!(
            super::ID_START,
            crate::layout::key_hash(b"roving dictionary"),
            "{:#x}",
            crate::layout::key_hash(b"roving dictionary")
        );
    }
}
