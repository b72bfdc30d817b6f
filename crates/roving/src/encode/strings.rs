//! The encoder's string table: every distinct string is written once.

use std::hash::{BuildHasher, Hasher};

use hashbrown::{DefaultHashBuilder, HashTable};

use crate::format::{read_varint, write_varint, SHORT_STR_MAX, TAG_SHORT_STR, TAG_STR};

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

/// Bits of [`Slot::tagged`] holding the generation.
const GEN_BITS: u32 = 16;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

/// One slot of the open-addressing table.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The string's hash with its low [`GEN_BITS`] bits replaced by the
    /// table's generation when the slot was filled: a slot of an earlier
    /// generation is empty, so emptying the table costs nothing.
    tagged: u64,
    /// Position of the string record.
    record: usize,
}

/// Positions of the string records written so far, found by content: a
/// linear-probing table (at most half full) whose slots carry the hash and
/// a generation, so that one comparison checks both, growing rehashes no
/// string, and clearing is a generation bump.
pub(super) struct StringTable {
    /// A power of two of slots (or none).
    slots: Vec<Slot>,
    /// Strings in the current generation.
    len: usize,
    /// The current generation (never 0: zeroed slots are empty).
    generation: u64,
    hasher: DefaultHashBuilder,
}

impl Default for StringTable {
    fn default() -> Self {
        StringTable {
            slots: Vec::new(),
            len: 0,
            generation: 1,
            hasher: DefaultHashBuilder::default(),
        }
    }
}

impl std::fmt::Debug for StringTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StringTable({} strings)", self.len)
    }
}

/// The bytes of the string record at `record` in `out`.
#[inline]
fn record_bytes(out: &[u8], record: usize) -> Option<&[u8]> {
    let tag = *out.get(record)?;
    if tag & 0xC0 == TAG_SHORT_STR {
        out.get(record + 1..record + 1 + (tag & 0x3F) as usize)
    } else {
        let (len, p) = read_varint(out, record + 1)?;
        out.get(p..p.checked_add(usize::try_from(len).ok()?)?)
    }
}

impl StringTable {
    /// Empties the table. A table grown by a big document shrinks back
    /// (above [`SHRINK_ABOVE`] slots) when that document used less than an
    /// eighth of it, so that small documents after a big one stay small.
    pub(super) fn clear(&mut self) {
        let used = self.len;
        self.len = 0;
        if self.slots.len() > SHRINK_ABOVE && self.slots.len() > used * 8 {
            self.slots = Vec::new();
            self.generation = 1;
            return;
        }
        self.generation = (self.generation + 1) & GEN_MASK;
        if self.generation == 0 {
            // Generations wrapped: really empty the slots.
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    /// Slots of the table (it holds up to half as many strings without growing).
    pub(super) fn capacity(&self) -> usize {
        self.slots.len()
    }

    #[inline]
    fn hash(&self, s: &[u8]) -> u64 {
        // The bytes alone (no length prefix, unlike `Hash for [u8]`).
        let mut h = self.hasher.build_hasher();
        h.write(s);
        h.finish()
    }

    /// Position of the record of `s`, writing it to `out` if it is new.
    #[inline(always)]
    pub(super) fn intern(&mut self, out: &mut Vec<u8>, s: &[u8]) -> usize {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let tagged = (self.hash(s) & !GEN_MASK) | self.generation;
        let mask = self.slots.len() - 1;
        let mut i = (tagged >> 32) as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.tagged & GEN_MASK != self.generation {
                break;
            }
            if slot.tagged == tagged && super::key_eq(record_bytes(out, slot.record), s) {
                return slot.record;
            }
            i = (i + 1) & mask;
        }
        let record = out.len();
        if s.len() <= SHORT_STR_MAX {
            out.push(TAG_SHORT_STR | s.len() as u8);
        } else {
            out.push(TAG_STR);
            write_varint(out, s.len() as u64);
        }
        out.extend_from_slice(s);
        self.slots[i] = Slot { tagged, record };
        self.len += 1;
        record
    }

    /// Doubles the slots (16 at first), moving the current strings by
    /// their kept hashes.
    #[cold]
    fn grow(&mut self) {
        let n = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); n]);
        let mask = n - 1;
        for slot in old {
            if slot.tagged & GEN_MASK != self.generation {
                continue;
            }
            let mut i = (slot.tagged >> 32) as usize & mask;
            while self.slots[i].tagged & GEN_MASK == self.generation {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }
}
