//! The encoder's string table: every distinct string is written once.

use std::hash::{BuildHasher, Hasher};

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};

use crate::format::{write_varint, SHORT_STR_MAX, TAG_SHORT_STR, TAG_STR};

/// Tables up to this capacity are kept whatever the last document used.
const SHRINK_ABOVE: usize = 4096;

/// Empties `table`. Clearing costs its capacity, so a table grown by a big
/// document shrinks back (above `keep` entries of capacity) when that
/// document used less than a quarter of it: small documents encoded after
/// a big one stay cheap.
pub(super) fn clear_table<T>(table: &mut HashTable<T>, keep: usize, hash: impl Fn(&T) -> u64) {
    let used = table.len();
    table.clear();
    if table.capacity() > keep && table.capacity() > used * 4 {
        table.shrink_to(used, hash);
    }
}

#[derive(Clone, Copy, Debug)]
struct Interned {
    /// Position of the string record.
    record: usize,
    /// Position of the string's bytes.
    data: usize,
    len: usize,
    /// The string's hash, kept so that growing the table rehashes nothing.
    hash: u64,
}

/// Positions of the string records written so far, found by content.
#[derive(Default)]
pub(super) struct StringTable {
    table: HashTable<Interned>,
    hasher: DefaultHashBuilder,
}

impl std::fmt::Debug for StringTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StringTable({} strings)", self.table.len())
    }
}

impl StringTable {
    /// Empties the table (see [`clear_table`]).
    pub(super) fn clear(&mut self) {
        clear_table(&mut self.table, SHRINK_ABOVE, |e| e.hash);
    }

    /// Position of the record of `s`, writing it to `out` if it is new.
    #[inline]
    pub(super) fn intern(&mut self, out: &mut Vec<u8>, s: &[u8]) -> usize {
        // The bytes alone (no length prefix, unlike `Hash for [u8]`).
        let mut h = self.hasher.build_hasher();
        h.write(s);
        let hash = h.finish();
        let entry = self.table.entry(
            hash,
            |e| e.hash == hash && e.len == s.len() && out.get(e.data..e.data + e.len) == Some(s),
            |e| e.hash,
        );
        let vacant = match entry {
            Entry::Occupied(e) => return e.get().record,
            Entry::Vacant(v) => v,
        };
        let record = out.len();
        if s.len() <= SHORT_STR_MAX {
            out.push(TAG_SHORT_STR | s.len() as u8);
        } else {
            out.push(TAG_STR);
            write_varint(out, s.len() as u64);
        }
        let data = out.len();
        out.extend_from_slice(s);
        vacant.insert(Interned {
            record,
            data,
            len: s.len(),
            hash,
        });
        record
    }
}
