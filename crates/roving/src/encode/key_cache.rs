//! The encoder's key cache: the string record of a key by the key's
//! address, so that a repeated key (a struct field name) is not hashed.

use super::strings::str_header_len;
use super::Encoder;

/// Entries of the encoder's key cache (a power of two).
pub(super) const KEY_CACHE: usize = 64;

/// One entry of the key cache: a key's address and length, and where its
/// string record and bytes are in the document.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KeyCacheEntry {
    /// Address of the key's bytes when it was looked up.
    addr: usize,
    /// Length of the key.
    len: usize,
    /// Position of its string record.
    record: usize,
    /// Position of its bytes in the document.
    data: usize,
    /// The document (encoder generation) the entry belongs to: entries of
    /// earlier documents are stale, so a reset need not clear the cache.
    generation: u64,
}

impl Encoder {
    /// The string record of a key, through a small cache keyed by the key's
    /// address (struct field names and interned keys repeat at the same
    /// address); a hit is confirmed by comparing the bytes.
    #[inline]
    pub(super) fn key_record(&mut self, key: &[u8]) -> usize {
        let addr = key.as_ptr() as usize;
        let slot = ((addr >> 3) ^ key.len().wrapping_mul(31)) & (KEY_CACHE - 1);
        let entry = self.key_cache[slot];
        if entry.addr == addr
            && entry.len == key.len()
            && entry.generation == self.generation
            && self.out.get(entry.data..entry.data + entry.len) == Some(key)
        {
            return entry.record;
        }
        let record = self.strings.intern(&mut self.out, key);
        let data = record + str_header_len(key.len());
        self.key_cache[slot] = KeyCacheEntry {
            addr,
            len: key.len(),
            record,
            data,
            generation: self.generation,
        };
        record
    }
}
