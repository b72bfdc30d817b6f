//! Maps read in place: key lookup through the shared shape, with an optional
//! reusable [`KeyHandle`] that remembers the slot of a key per shape.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{ErrorKind, Result};
use crate::layout::*;
use crate::read::array::{packed_value, ArrayStrings, Numbers};
use crate::read::value::{
    check_slot, header_error, malformed, slot_value, slot_value_each, text, Value, LAZY,
};

/// Key lookups in a shape (its header is decoded by [`crate::layout`]).
impl Shape {
    /// Whether key `i` is the probe's key.
    #[inline(always)]
    fn key_is(&self, buf: &[u8], i: usize, probe: &Probe<'_>) -> bool {
        if self.is_packed() {
            return self
                .key_bytes(buf, i)
                .is_some_and(|k| bytes_eq(k, probe.key));
        }
        match self.read_key_slot(buf, i) {
            Some(Slot::Ref(p)) => probe.matches(buf, p),
            Some(Slot::Special(SPECIAL_EMPTY_STR)) => probe.key.is_empty(),
            _ => false,
        }
    }

    /// Index of `key` in this shape.
    #[inline]
    pub(crate) fn find(&self, buf: &[u8], key: &[u8]) -> Option<usize> {
        let probe = Probe::new(key);
        if self.count <= SHAPE_LINEAR_MAX {
            return (0..self.count).find(|&i| self.key_is(buf, i, &probe));
        }
        if self.order() != 0 {
            return self.find_ordered(buf, key);
        }
        self.find_hashed(buf, &probe.hashed())
    }

    /// [`find`](Self::find) in the shape at `pos`, out of line: for the
    /// lookups that [`find_short`](Self::find_short) does not take. (The
    /// shape is decoded again from its position, so that the inlined
    /// caller need not keep a copy of it in memory.)
    #[inline(never)]
    fn find_general(buf: &[u8], pos: usize, key: &[u8]) -> Option<usize> {
        Shape::at(buf, pos)?.find(buf, key)
    }

    /// Whether [`find_short`](Self::find_short) applies: a hashed shape
    /// with one-byte index entries (9 to 254 keys).
    #[inline(always)]
    fn short_table(&self) -> bool {
        self.count > SHAPE_LINEAR_MAX && self.count < 0xFF && !self.is_packed()
    }

    /// Index of a key of 1 to 7 bytes in a shape with
    /// [`short_table`](Self::short_table), given its [`ShortKey`]: the
    /// lookup of `get` in records of one kind, kept lean (the key's
    /// record word, mask and hash are plain values, the table is
    /// bounds-checked once, mismatching short strings are rejected with
    /// one comparison).
    #[inline(always)]
    fn find_short(&self, buf: &[u8], key: &[u8], sk: ShortKey) -> Option<usize> {
        let table = index_table_size(self.count);
        let mask = table - 1;
        let index = self.index_pos();
        let entries = buf.get(index..index.checked_add(table)?)?;
        let mut i = index_home(sk.hash, table);
        for _ in 0..table {
            let k = (*entries.get(i)? as usize).wrapping_sub(1);
            if k >= self.count {
                // Entry 0 is empty; above the count is malformed.
                return None;
            }
            // The empty-string immediate (or a malformed slot) never
            // holds a key of 1 to 7 bytes.
            if let Some(Slot::Ref(p)) = self.read_key_slot(buf, k) {
                if sk.matches(buf, p, key) {
                    return Some(k);
                }
            }
            i = (i + 1) & mask;
        }
        None
    }

    /// Index of the probe's key in this shape.
    #[inline(always)]
    pub(crate) fn find_hashed(&self, buf: &[u8], probe: &Probe<'_>) -> Option<usize> {
        if self.count <= SHAPE_LINEAR_MAX {
            return (0..self.count).find(|&i| self.key_is(buf, i, probe));
        }
        if self.is_packed() {
            return self.find_packed(buf, probe);
        }
        let hash = probe.hash;
        let table = index_table_size(self.count);
        let mask = table - 1;
        let index = self.index_pos();
        let mut i = index_home(hash, table);
        if self.count < 0xFF {
            // One-byte entries (shapes of fewer than 255 keys): the table is
            // bounds-checked once.
            let entries = buf.get(index..index.checked_add(table)?)?;
            for _ in 0..table {
                let k = (*entries.get(i)? as usize).wrapping_sub(1);
                if k >= self.count {
                    // Entry 0 is empty; above the count is malformed (never
                    // in a validated document): either way the key is absent.
                    return None;
                }
                if self.key_is(buf, k, probe) {
                    return Some(k);
                }
                i = (i + 1) & mask;
            }
            return None;
        }
        let ew = index_entry_width(self.count);
        for _ in 0..table {
            let k = (read_uint(buf, index + i * ew, ew)? as usize).wrapping_sub(1);
            if k >= self.count {
                return None;
            }
            if self.key_is(buf, k, probe) {
                return Some(k);
            }
            i = (i + 1) & mask;
        }
        None
    }
}

impl Shape {
    /// [`find_hashed`](Self::find_hashed) in a packed shape of more than
    /// [`SHAPE_LINEAR_MAX`] keys: its dense index, the keys compared by
    /// their bytes (out of line: the shapes of records keep their lean
    /// path).
    #[inline(never)]
    fn find_packed(&self, buf: &[u8], probe: &Probe<'_>) -> Option<usize> {
        if self.order() != 0 {
            return self.find_ordered(buf, probe.key);
        }
        let keys = self.packed(buf)?;
        let table = self.table_size();
        let ew = index_entry_width(self.count);
        let entries = self.index_table(buf)?;
        let mut i = self.home(probe.hash, table);
        for _ in 0..table {
            let k = (read_uint(entries, i * ew, ew)? as usize).wrapping_sub(1);
            if k >= self.count {
                return None;
            }
            if keys.bytes(buf, k).is_some_and(|b| bytes_eq(b, probe.key)) {
                return Some(k);
            }
            i += 1;
            if i == table {
                i = 0;
            }
        }
        None
    }
}

impl Shape {
    /// Index of `key` in a packed shape whose keys are in order (more than
    /// [`SHAPE_LINEAR_MAX`] of them): a binary search, O(log n) key
    /// comparisons. (Keys out of order, never in a validated document,
    /// make it miss, not fail.)
    #[inline(never)]
    fn find_ordered(&self, buf: &[u8], key: &[u8]) -> Option<usize> {
        use std::cmp::Ordering::*;
        let keys = self.packed(buf)?;
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match key_order(self.order(), keys.bytes(buf, mid)?, key) {
                Less => lo = mid + 1,
                Greater => hi = mid,
                Equal => return Some(mid),
            }
        }
        None
    }
}

/// A key prepared for comparison with key records: keys of up to 7 bytes
/// are compared with a short-string record (tag and bytes) as one masked
/// 8-byte word.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe<'k> {
    key: &'k [u8],
    /// The record `TAG_SHORT_STR | len, key bytes` as a little-endian word
    /// (keys of up to 7 bytes; else 1, which no masked word equals).
    record: u64,
    /// Mask of the record's `len + 1` bytes (0 for longer keys).
    mask: u64,
    /// The short-string tag of the key's length (0 for keys of more than 63 bytes).
    tag: u8,
    hash: u64,
}

impl<'k> Probe<'k> {
    /// The probe of `key`, without its hash (see [`hashed`](Self::hashed)).
    #[inline(always)]
    fn new(key: &'k [u8]) -> Probe<'k> {
        let n = key.len();
        let tag = if n <= SHORT_STR_MAX {
            short_str_tag(n)
        } else {
            0
        };
        if n <= 8 {
            let word = short_word(key);
            let (record, mask) = if n <= 7 {
                ((word << 8) | tag as u64, u64::MAX >> (56 - 8 * n))
            } else {
                (1, 0)
            };
            Probe {
                key,
                record,
                mask,
                tag,
                // The word, until `hashed` replaces it by the hash.
                hash: word,
            }
        } else {
            Probe {
                key,
                record: 1,
                mask: 0,
                tag,
                hash: 0,
            }
        }
    }

    /// The probe with its key hash (computed from the word for short keys).
    #[inline(always)]
    fn hashed(mut self) -> Probe<'k> {
        let n = self.key.len();
        self.hash = if n <= 8 {
            short_key_hash(self.hash, n)
        } else {
            key_hash(self.key)
        };
        self
    }

    /// Whether the record at `p` is a string record holding the key.
    #[inline(always)]
    fn matches(&self, buf: &[u8], p: usize) -> bool {
        if let Some(c) = buf.get(p..).and_then(|b| b.first_chunk::<8>()) {
            let v = u64::from_le_bytes(*c);
            if v & self.mask == self.record {
                return true;
            }
            let t = v as u8;
            if is_short_str(t) && (t != self.tag || self.mask != 0) {
                // A short string of another length, or of the same length
                // as a key of up to 7 bytes but other bytes.
                return false;
            }
        }
        matches_slow(buf, p, self.key)
    }
}

/// A key of 1 to 7 bytes prepared for [`Shape::find_short`]: the
/// short-string record `TAG_SHORT_STR | len, key bytes` as a little-endian
/// word, the mask of its `len + 1` bytes, and the key hash.
#[derive(Clone, Copy, Debug)]
struct ShortKey {
    record: u64,
    mask: u64,
    hash: u64,
}

impl ShortKey {
    /// The prepared key; `key` must be 1 to 7 bytes long.
    #[inline(always)]
    fn new(key: &[u8]) -> ShortKey {
        let n = key.len();
        debug_assert!((1..=7).contains(&n));
        let word = short_word(key);
        ShortKey {
            record: (word << 8) | short_str_tag(n) as u64,
            mask: u64::MAX >> ((56 - 8 * n) & 63),
            hash: short_key_hash(word, n),
        }
    }

    /// Whether the record at `p` is a string record holding `key` (the
    /// key this was made from).
    #[inline(always)]
    fn matches(&self, buf: &[u8], p: usize, key: &[u8]) -> bool {
        if let Some(c) = buf.get(p..).and_then(|b| b.first_chunk::<8>()) {
            let v = u64::from_le_bytes(*c);
            if v & self.mask == self.record {
                return true;
            }
            if is_short_str(v as u8) {
                // A short string of another length or other bytes.
                return false;
            }
        }
        matches_slow(buf, p, key)
    }
}

/// [`Probe::matches`] for a long-form (0C) record, a key of more than 7
/// bytes, or a record near the end of the buffer: out of line, so that the
/// probe loop keeps its registers.
#[cold]
#[inline(never)]
fn matches_slow(buf: &[u8], p: usize, key: &[u8]) -> bool {
    str_record(buf, p).is_some_and(|k| bytes_eq(k, key))
}

/// A map inside a document. Keys keep the writer's insertion order.
///
/// A position; its header and shape are decoded on use, so that a `Value`
/// stays small and copying it is cheap.
#[derive(Clone, Copy)]
pub struct Map<'a> {
    buf: &'a [u8],
    /// Position of the record, with the [`LAZY`] bit of lazily opened documents.
    at: usize,
}

/// A decoded map header: where the values are and the shape.
#[derive(Clone, Copy, Debug)]
struct Header {
    /// Position of the first value slot (of a map of numbers: of its
    /// number array's first element).
    values: usize,
    /// Slot width (of a map of numbers: element size).
    width: usize,
    shape: Shape,
    /// How a map of numbers' values are stored (`None` for slots).
    numbers: Option<NumElem>,
}

impl Header {
    const EMPTY: Header = Header {
        values: 0,
        width: 1,
        shape: Shape::EMPTY,
        numbers: None,
    };

    /// The header of the map of numbers at `pos` (`None` if it does not
    /// decode, or a lazily opened document's is malformed).
    #[cold]
    #[inline(never)]
    fn of_numbers(buf: &[u8], pos: usize) -> Option<Header> {
        let m = num_map_record(buf, pos)?;
        Some(Header {
            values: m.values.data,
            width: m.values.elem.size(),
            shape: m.shape,
            numbers: Some(m.values.elem),
        })
    }

    #[inline(always)]
    fn value<'a>(&self, buf: &'a [u8], base: usize, i: usize, lazy: usize) -> Value<'a> {
        if let Some(elem) = self.numbers {
            return packed_value(buf, elem, self.values, i);
        }
        let slot = read_slot(buf, slot_pos(self.values, i, self.width), self.width, base);
        slot_value(buf, slot, lazy)
    }

    /// [`value`](Self::value) in a lazily opened document, reporting a
    /// malformed slot (which reads as null) as an error.
    fn checked_value<'a>(&self, buf: &'a [u8], base: usize, i: usize) -> Result<Value<'a>> {
        let v = self.value(buf, base, i, LAZY);
        if v.is_null() && self.numbers.is_none() {
            check_slot(buf, slot_pos(self.values, i, self.width), self.width, base)?;
        }
        Ok(v)
    }

    /// [`value`](Self::value) through [`slot_value_each`].
    #[inline(always)]
    fn value_each<'a>(&self, buf: &'a [u8], base: usize, i: usize, lazy: usize) -> Value<'a> {
        if let Some(elem) = self.numbers {
            return packed_value(buf, elem, self.values, i);
        }
        let slot = read_slot(buf, slot_pos(self.values, i, self.width), self.width, base);
        slot_value_each(buf, slot, lazy)
    }
}

record_accessors!(Map);

impl std::fmt::Debug for MapSlots<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapSlots")
            .field("offset", &self.base)
            .field("shape", &self.shape)
            .finish()
    }
}

impl std::fmt::Debug for MapIter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapIter")
            .field("offset", &self.base)
            .field("next", &self.next)
            .finish()
    }
}

impl<'a> Map<'a> {
    /// The map at `at`: a record position, with the [`LAZY`] bit for a
    /// lazily opened document. Without it the caller vouches that the
    /// document was validated or is trusted (keys are not re-checked).
    #[inline(always)]
    pub(crate) fn at(buf: &'a [u8], at: usize) -> Map<'a> {
        Map { buf, at }
    }

    #[inline(always)]
    fn header(&self) -> Option<Header> {
        let (tag, shape_pos, values) = map_header(self.buf, self.pos())?;
        if tag == TAG_NUM_MAP {
            return Header::of_numbers(self.buf, self.pos());
        }
        Some(Header {
            values,
            width: tag_width(tag),
            shape: Shape::at(self.buf, shape_pos)?,
            numbers: None,
        })
    }

    /// The header of a map of a lazily opened document, or why it does not decode.
    #[cold]
    fn checked_header(&self) -> Result<Header> {
        let pos = self.pos();
        let Some((tag, shape_pos, _)) = map_header(self.buf, pos) else {
            return Err(header_error(self.buf, pos));
        };
        if tag == TAG_NUM_MAP {
            return self
                .header()
                .ok_or_else(|| crate::layout::record_fault(self.buf, pos));
        }
        self.header().ok_or_else(|| match self.buf.get(shape_pos) {
            Some(&t) if is_any_shape(t) => header_error(self.buf, shape_pos),
            _ => malformed(ErrorKind::WrongTarget, shape_pos),
        })
    }

    /// Value `i` of a map of a lazily opened document, or why it is malformed.
    fn checked_value(&self, h: &Header, i: usize) -> Result<Value<'a>> {
        h.checked_value(self.buf, self.pos(), i)
    }

    /// The decoded header: the shape, the position of the first value
    /// slot and the slot width (`None` for the empty immediate or a header
    /// that does not decode).
    #[inline(always)]
    pub(crate) fn parts(&self) -> Option<(Shape, usize, usize)> {
        self.header()
            .filter(|h| h.numbers.is_none())
            .map(|h| (h.shape, h.values, h.width))
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.header().map_or(0, |h| h.shape.count)
    }

    /// True if there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` in insertion order.
    #[inline]
    pub fn value_at(&self, i: usize) -> Option<Value<'a>> {
        let h = self.header()?;
        (i < h.shape.count).then(|| h.value(self.buf, self.pos(), i, self.lazy()))
    }

    /// Key `i` in insertion order (in a lazily opened document, `None` for
    /// a key that is not UTF-8).
    #[inline]
    pub fn key_at(&self, i: usize) -> Option<&'a str> {
        let h = self.header()?;
        if i >= h.shape.count {
            return None;
        }
        text(h.shape.key_bytes(self.buf, i)?, self.lazy())
    }

    /// Position of `key` in insertion order.
    #[inline]
    pub fn position(&self, key: &str) -> Option<usize> {
        self.header()?.shape.find(self.buf, key.as_bytes())
    }

    /// The value of `key`, without allocating: a hash probe for maps of more
    /// than eight keys, a scan otherwise.
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"{"name":"Ada","age":36}"#)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let map = doc.root().as_map().unwrap();
    /// assert_eq!(map.get("age").and_then(|v| v.as_i64()), Some(36));
    /// assert!(map.get("email").is_none());
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline(always)]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        let h = self.header()?;
        let k = key.as_bytes();
        // Keys of 1 to 7 bytes in shapes of 9 to 254 keys (the common
        // case: field names of records) take a lean inlined path; the
        // rest (scans of small shapes, long keys, wide tables) a call.
        let i = if k.len().wrapping_sub(1) < 7 && h.shape.short_table() {
            h.shape.find_short(self.buf, k, ShortKey::new(k))?
        } else {
            Shape::find_general(self.buf, h.shape.pos, k)?
        };
        Some(h.value(self.buf, self.pos(), i, self.lazy()))
    }

    /// True if the map has `key` (whatever its value, `null` included).
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"{"email":null}"#)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let map = doc.root().as_map().unwrap();
    /// assert!(map.contains_key("email"));
    /// assert!(!map.contains_key("phone"));
    /// # Ok::<(), roving::Error>(())
    /// ```
    #[inline]
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// The value of the handle's key; after the first lookup in maps of one
    /// shape, lookups in other maps of that shape read the slot directly.
    #[inline]
    pub fn get_with(&self, handle: &KeyHandle) -> Option<Value<'a>> {
        let h = self.header()?;
        let i = self.handle_index(&h, handle)?;
        Some(h.value(self.buf, self.pos(), i, self.lazy()))
    }

    /// Index of the handle's key, through its cache.
    #[inline(always)]
    fn handle_index(&self, h: &Header, handle: &KeyHandle) -> Option<usize> {
        let cached = handle.cache.load(Ordering::Relaxed);
        let guess = (cached & 0xFFFF_FFFF) as usize;
        // The cached slot is checked against the key, so a handle shared
        // between documents never returns another key's value. Keys of 1
        // to 7 bytes (`mask != 0`) are checked inline with one masked
        // word; other keys, and cache misses, go out of line.
        if handle.mask != 0 && cached >> 32 == h.shape.pos as u64 + 1 && guess < h.shape.count {
            if let Some(Slot::Ref(p)) = h.shape.read_key_slot(self.buf, guess) {
                if let Some(c) = self.buf.get(p..).and_then(|b| b.first_chunk::<8>()) {
                    if u64::from_le_bytes(*c) & handle.mask == handle.record {
                        return Some(guess);
                    }
                }
            }
        }
        Self::handle_slow(self.buf, h.shape.pos, handle)
    }

    /// [`handle_index`](Self::handle_index) out of line, in the shape at
    /// `pos`: checks the cached slot with the general comparison, else
    /// probes the shape and remembers the slot found.
    #[inline(never)]
    fn handle_slow(buf: &[u8], pos: usize, handle: &KeyHandle) -> Option<usize> {
        let shape = Shape::at(buf, pos)?;
        let probe = handle.probe();
        let cached = handle.cache.load(Ordering::Relaxed);
        let shape_tag = pos as u64 + 1;
        let guess = (cached & 0xFFFF_FFFF) as usize;
        if cached >> 32 == shape_tag && guess < shape.count && shape.key_is(buf, guess, &probe) {
            return Some(guess);
        }
        let i = shape.find_hashed(buf, &probe)?;
        if shape_tag < (1 << 32) && i < (1 << 32) {
            handle
                .cache
                .store((shape_tag << 32) | i as u64, Ordering::Relaxed);
        }
        Some(i)
    }

    /// The value of `key` (`Ok(None)` if absent), reporting malformed bytes
    /// of a lazily opened document ([`Document::open_lazy`]) as an error
    /// instead of a `Null` or an absence: a header or shape that does not
    /// decode, a value slot that is not a valid immediate or backward
    /// reference, a target that is not a value record, a string that is not
    /// UTF-8. (A key that a malformed index does not lead to is reported
    /// absent.) For validated documents this is [`get`](Self::get).
    ///
    /// [`Document::open_lazy`]: crate::Document::open_lazy
    pub fn try_get(&self, key: &str) -> Result<Option<Value<'a>>> {
        if self.lazy() == 0 {
            return Ok(self.get(key));
        }
        let h = self.checked_header()?;
        match h.shape.find(self.buf, key.as_bytes()) {
            Some(i) => self.checked_value(&h, i).map(Some),
            None => Ok(None),
        }
    }

    /// [`get_with`](Self::get_with), reporting malformed bytes as
    /// [`try_get`](Self::try_get) does.
    pub fn try_get_with(&self, handle: &KeyHandle) -> Result<Option<Value<'a>>> {
        if self.lazy() == 0 {
            return Ok(self.get_with(handle));
        }
        let h = self.checked_header()?;
        match self.handle_index(&h, handle) {
            Some(i) => self.checked_value(&h, i).map(Some),
            None => Ok(None),
        }
    }

    /// [`value_at`](Self::value_at), reporting malformed bytes as
    /// [`try_get`](Self::try_get) does.
    pub fn try_value_at(&self, i: usize) -> Result<Option<Value<'a>>> {
        if self.lazy() == 0 {
            return Ok(self.value_at(i));
        }
        let h = self.checked_header()?;
        if i >= h.shape.count {
            return Ok(None);
        }
        self.checked_value(&h, i).map(Some)
    }

    /// [`key_at`](Self::key_at), reporting a malformed key slot or a key
    /// that is not UTF-8 in a lazily opened document as an error.
    pub fn try_key_at(&self, i: usize) -> Result<Option<&'a str>> {
        if self.lazy() == 0 {
            return Ok(self.key_at(i));
        }
        let h = self.checked_header()?;
        if i >= h.shape.count {
            return Ok(None);
        }
        if h.shape.is_packed() {
            return match h.shape.key_bytes(self.buf, i) {
                None => Err(malformed(ErrorKind::BadLength, h.shape.pos)),
                Some(b) => match text(b, LAZY) {
                    Some(k) => Ok(Some(k)),
                    None => Err(malformed(ErrorKind::InvalidUtf8, h.shape.pos)),
                },
            };
        }
        let slot = h.shape.key_slot(i);
        match h.shape.key_record(self.buf, i) {
            None => Err(malformed(ErrorKind::BadReference, slot)),
            Some(None) => Ok(Some("")),
            Some(Some(p)) => match str_record(self.buf, p) {
                None => Err(malformed(ErrorKind::WrongTarget, p)),
                Some(b) => match text(b, LAZY) {
                    Some(k) => Ok(Some(k)),
                    None => Err(malformed(ErrorKind::InvalidUtf8, p)),
                },
            },
        }
    }

    /// The map's header decoded once, for reading its keys and values by
    /// index (typed decoders that read every entry of many maps of one
    /// kind: see [`MapSlots`]).
    #[inline]
    pub fn slots(&self) -> MapSlots<'a> {
        let h = self.header();
        MapSlots {
            buf: self.buf,
            base: self.pos(),
            lazy: self.lazy(),
            shape: h.map(|h| h.shape.pos),
            h: h.unwrap_or(Header::EMPTY),
        }
    }

    /// The entries in insertion order.
    ///
    /// ```
    /// let bytes = roving::json::from_json(br#"{"a":1,"b":"x"}"#)?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let map = doc.root().as_map().unwrap();
    /// let entries: Vec<(&str, &str)> = map.iter().map(|(k, v)| (k, v.type_name())).collect();
    /// assert_eq!(entries, [("a", "int"), ("b", "str")]);
    /// assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b"]);
    /// assert_eq!(map.values().len(), 2);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn iter(&self) -> MapIter<'a> {
        MapIter {
            buf: self.buf,
            base: self.pos(),
            lazy: self.lazy(),
            h: self.header().unwrap_or(Header::EMPTY),
            next: 0,
        }
    }

    /// The keys in insertion order (the values are not read).
    pub fn keys(&self) -> impl Iterator<Item = &'a str> + 'a {
        let MapIter { buf, lazy, h, .. } = self.iter();
        let shape = h.shape;
        // A packed shape's keys are read in one pass over its ends.
        let mut packed = shape.packed(buf).map(|sa| StrArrayBytes::new(buf, sa));
        // As `iter` reads them: a malformed key (or, in a lazily opened
        // document, one that is not UTF-8) reads as "".
        (0..shape.count).map(move |i| {
            let k = match &mut packed {
                Some(keys) => keys.next().flatten(),
                None => shape.key_bytes(buf, i),
            };
            k.and_then(|k| text(k, lazy)).unwrap_or("")
        })
    }

    /// For a map whose keys are a packed shape (FORMAT.md section 6.18:
    /// a map whose keys no other map shares, such as a dict keyed by ids),
    /// its keys in order as a string array's strings, read block by block
    /// with [`ArrayStrings::try_each`]: faster than [`keys`](Self::keys).
    /// `None` for a map of another shape. A key is `None` only if it is
    /// malformed in a lazily opened document (where `keys` gives `""`).
    ///
    /// ```
    /// let ids: Vec<String> = (0..100).map(|i| format!("id{i}")).collect();
    /// let mut e = roving::Encoder::new();
    /// let keys: Vec<&str> = ids.iter().map(String::as_str).collect();
    /// e.begin_map_with_keys(&keys)?;
    /// for i in 0..100 {
    ///     e.i64(i)?;
    /// }
    /// e.end_map()?;
    /// let bytes = e.finish()?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let map = doc.root().as_map().unwrap();
    /// let mut read = Vec::new();
    /// map.packed_keys().unwrap().try_each(|k| {
    ///     read.push(k.unwrap());
    ///     Ok::<(), roving::Error>(())
    /// })?;
    /// assert_eq!(read, keys);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn packed_keys(&self) -> Option<ArrayStrings<'a>> {
        let MapIter { buf, lazy, h, .. } = self.iter();
        let keys = h.shape.packed(buf)?;
        Some(ArrayStrings::new(StrArrayBytes::new(buf, keys), lazy))
    }

    /// The values of a map of numbers (format version 2: a map whose
    /// values are stored as one number array, `docs/FORMAT.md` section
    /// 6.19), as stored; `None` for a map whose values are slots. For
    /// readers that convert all of a map's values at once.
    ///
    /// ```
    /// use roving::layout::{ElemType, NumElem};
    /// let keys: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    /// let keys: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
    /// let mut enc = roving::Encoder::new();
    /// enc.begin_map_with_keys(&keys)?;
    /// for i in 0..100 {
    ///     enc.i64(i * 100)?;
    /// }
    /// enc.end_map()?;
    /// let bytes = enc.finish()?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let map = doc.root().as_map().unwrap();
    /// // Values up to 9,900: 2 bytes each, where slots would take 4.
    /// let numbers = map.numbers().unwrap();
    /// assert_eq!(numbers.elem(), NumElem::Binary(ElemType::I16));
    /// assert_eq!(numbers.get(7).and_then(|v| v.as_i64()), Some(700));
    /// assert_eq!(map.get("7").and_then(|v| v.as_i64()), Some(700));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn numbers(&self) -> Option<Numbers<'a>> {
        self.num_parts().map(|(_, numbers)| numbers)
    }

    /// The shape and the values of a map of numbers (see [`Map::numbers`]).
    pub(crate) fn num_parts(&self) -> Option<(Shape, Numbers<'a>)> {
        let h = self.header()?;
        let numbers = Numbers::from_parts(self.buf, h.numbers?, h.values, h.shape.count)?;
        Some((h.shape, numbers))
    }

    /// The values in insertion order.
    pub fn values(&self) -> MapValues<'a> {
        MapValues(self.iter())
    }

    /// Byte offset of this map's record (`None` for the empty map immediate).
    pub fn offset(&self) -> Option<usize> {
        (!self.buf.is_empty()).then_some(self.pos())
    }

    /// Byte offset of the shape (key list) record this map uses; maps with
    /// equal shape offsets have the same keys in the same order.
    pub fn shape_offset(&self) -> Option<usize> {
        self.header().map(|h| h.shape.pos)
    }

    /// Length of the whole document this map is in (0 for the empty map).
    pub(crate) fn doc_len(&self) -> usize {
        self.buf.len()
    }
}

impl<'a> IntoIterator for Map<'a> {
    type Item = (&'a str, Value<'a>);
    type IntoIter = MapIter<'a>;
    fn into_iter(self) -> MapIter<'a> {
        self.iter()
    }
}

/// `for x in &map`, as for `Vec` and `HashMap` (the same items as
/// [`Map::iter`]).
///
/// ```
/// let bytes = roving::json::from_json(br#"{"a":1,"b":2}"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// let map = doc.root().as_map().unwrap();
/// let mut keys = Vec::new();
/// for (key, _value) in &map {
///     keys.push(key);
/// }
/// assert_eq!(keys, ["a", "b"]);
/// # Ok::<(), roving::Error>(())
/// ```
impl<'a> IntoIterator for &Map<'a> {
    type Item = (&'a str, Value<'a>);
    type IntoIter = MapIter<'a>;
    fn into_iter(self) -> MapIter<'a> {
        self.iter()
    }
}

/// A [`Map`] with its header decoded: its keys and values read by index
/// with no further decoding ([`Map::slots`]). A map whose header does not
/// decode (only in a lazily opened document) reads as empty.
#[derive(Clone, Copy)]
pub struct MapSlots<'a> {
    buf: &'a [u8],
    base: usize,
    lazy: usize,
    /// The shape's position if the header decoded.
    shape: Option<usize>,
    h: Header,
}

impl<'a> MapSlots<'a> {
    /// Number of entries.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.h.shape.count
    }

    /// True if there are no entries.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.h.shape.count == 0
    }

    /// Byte offset of the shape (key list) record, as
    /// [`Map::shape_offset`] (`None` for the empty map).
    #[inline(always)]
    pub fn shape_offset(&self) -> Option<usize> {
        self.shape
    }

    /// Key `i`, as [`Map::key_at`].
    #[inline]
    pub fn key(&self, i: usize) -> Option<&'a str> {
        if i >= self.h.shape.count {
            return None;
        }
        text(self.h.shape.key_bytes(self.buf, i)?, self.lazy)
    }

    /// The whole string record of key `i` as stored (tag, length and
    /// bytes; empty for the empty key, which has no record): a token to
    /// compare keys of other maps with in one step
    /// ([`key_record_is`](Self::key_record_is)). `None` past the end or
    /// for a malformed key slot; `None` too for every key of a packed
    /// shape (format version 2), which has no record (its keys are found
    /// by [`key`](Self::key)).
    pub fn key_record(&self, i: usize) -> Option<&'a [u8]> {
        if i >= self.h.shape.count {
            return None;
        }
        let start = match self.h.shape.key_record(self.buf, i)? {
            Some(p) => p,
            None => return Some(&[]),
        };
        let bytes = str_record(self.buf, start)?;
        // The key's bytes end the record.
        let end = (bytes.as_ptr() as usize - self.buf.as_ptr() as usize) + bytes.len();
        self.buf.get(start..end)
    }

    /// Whether key `i` is stored as exactly the string record `rec` (from
    /// [`key_record`](Self::key_record) of this or another map): then it
    /// is the same key. A key stored in another form (a long-form record
    /// for a short key) is reported different although it is equal. A
    /// key of a packed shape, which has no record, is never reported the
    /// same.
    #[inline(always)]
    pub fn key_record_is(&self, i: usize, rec: &[u8]) -> bool {
        if i >= self.h.shape.count {
            return false;
        }
        match self.h.shape.read_key_slot(self.buf, i) {
            Some(Slot::Ref(p)) if !rec.is_empty() => same_record(self.buf, p, rec),
            Some(Slot::Special(SPECIAL_EMPTY_STR)) => rec.is_empty(),
            _ => false,
        }
    }

    /// Value `i`, as [`Map::value_at`].
    #[inline(always)]
    pub fn value(&self, i: usize) -> Option<Value<'a>> {
        (i < self.h.shape.count).then(|| self.h.value_each(self.buf, self.base, i, self.lazy))
    }

    /// [`value`](Self::value), reporting malformed bytes of a lazily opened
    /// document as [`Map::try_value_at`] does.
    pub fn try_value(&self, i: usize) -> Result<Option<Value<'a>>> {
        if i >= self.h.shape.count {
            return Ok(None);
        }
        if self.lazy == 0 {
            return Ok(Some(self.h.value(self.buf, self.base, i, 0)));
        }
        self.h.checked_value(self.buf, self.base, i).map(Some)
    }
}

/// Whether the bytes at `p` start with `rec` (8 to 16 bytes compared as
/// two words, no call to `memcmp`).
#[inline(always)]
fn same_record(buf: &[u8], p: usize, rec: &[u8]) -> bool {
    let n = rec.len();
    let Some(s) = p.checked_add(n).and_then(|end| buf.get(p..end)) else {
        return false;
    };
    if (8..=16).contains(&n) {
        let word = |x: &[u8], i: usize| {
            x.get(i..i + 8)
                .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
        };
        return word(s, 0) == word(rec, 0) && word(s, n - 8) == word(rec, n - 8);
    }
    bytes_eq(s, rec)
}

/// Iterator over the entries of a [`Map`].
#[derive(Clone)]
pub struct MapIter<'a> {
    buf: &'a [u8],
    base: usize,
    lazy: usize,
    h: Header,
    next: usize,
}

impl<'a> Iterator for MapIter<'a> {
    type Item = (&'a str, Value<'a>);

    #[inline]
    fn next(&mut self) -> Option<(&'a str, Value<'a>)> {
        let i = self.next;
        if i >= self.h.shape.count {
            return None;
        }
        self.next += 1;
        // A malformed key (or, in a lazily opened document, one that is not
        // UTF-8) reads as "".
        let k = self.h.shape.key_bytes(self.buf, i);
        let k = k.and_then(|k| text(k, self.lazy)).unwrap_or("");
        Some((k, self.h.value(self.buf, self.base, i, self.lazy)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.h.shape.count - self.next.min(self.h.shape.count);
        (n, Some(n))
    }
}

impl ExactSizeIterator for MapIter<'_> {}

/// Iterator over the values of a [`Map`] in insertion order (the keys are
/// not read).
#[derive(Clone, Debug)]
pub struct MapValues<'a>(MapIter<'a>);

impl<'a> Iterator for MapValues<'a> {
    type Item = Value<'a>;

    #[inline]
    fn next(&mut self) -> Option<Value<'a>> {
        let it = &mut self.0;
        let i = it.next;
        if i >= it.h.shape.count {
            return None;
        }
        it.next += 1;
        Some(it.h.value(it.buf, it.base, i, it.lazy))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl ExactSizeIterator for MapValues<'_> {}

/// A key prepared for repeated lookups: its hash is computed once, and the
/// slot it occupies is remembered for the last shape it was found in, so
/// looking it up in many maps of the same shape (records of one kind) costs
/// one comparison and one slot read. Safe to share between threads.
///
/// ```
/// use roving::KeyHandle;
/// let bytes = roving::json::from_json(br#"[{"id":1,"name":"a"},{"id":2,"name":"b"}]"#)?;
/// let doc = roving::Document::open(&bytes)?;
/// let name = KeyHandle::new("name"); // make once, use for every record
/// let names: Vec<&str> = doc
///     .root()
///     .as_array()
///     .unwrap()
///     .iter()
///     .filter_map(|r| r.as_map()?.get_with(&name)?.as_str())
///     .collect();
/// assert_eq!(names, ["a", "b"]);
/// # Ok::<(), roving::Error>(())
/// ```
#[derive(Debug)]
pub struct KeyHandle {
    key: Box<str>,
    /// [`Probe::record`], [`Probe::mask`], [`Probe::tag`] and [`Probe::hash`] of the key.
    record: u64,
    mask: u64,
    tag: u8,
    hash: u64,
    cache: AtomicU64,
}

impl KeyHandle {
    /// A handle for `key`.
    pub fn new(key: &str) -> KeyHandle {
        let p = Probe::new(key.as_bytes()).hashed();
        KeyHandle {
            key: key.into(),
            record: p.record,
            mask: p.mask,
            tag: p.tag,
            hash: p.hash,
            cache: AtomicU64::new(0),
        }
    }

    #[inline(always)]
    fn probe(&self) -> Probe<'_> {
        Probe {
            key: self.key.as_bytes(),
            record: self.record,
            mask: self.mask,
            tag: self.tag,
            hash: self.hash,
        }
    }

    /// The key.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl Clone for KeyHandle {
    fn clone(&self) -> KeyHandle {
        KeyHandle {
            key: self.key.clone(),
            record: self.record,
            mask: self.mask,
            tag: self.tag,
            hash: self.hash,
            cache: AtomicU64::new(self.cache.load(Ordering::Relaxed)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_doc(keys: &[&str], first: i64) -> Vec<u8> {
        let mut enc = crate::Encoder::new();
        enc.begin_map().unwrap();
        for (i, k) in keys.iter().enumerate() {
            enc.key(k).unwrap();
            enc.i64(first + i as i64).unwrap();
        }
        enc.end_map().unwrap();
        enc.finish().unwrap()
    }

    /// `MapSlots` reads what `Map` reads, and `key_record_is` tells keys
    /// apart exactly, across documents: empty, short, 7-to-16-byte and long keys.
    #[test]
    fn map_slots_agree_with_map() {
        let long = "k".repeat(70);
        let keys = [
            "",
            "a",
            "views",
            "identifier",
            "displayInRect!!!",
            "optionalStringXY",
            long.as_str(),
        ];
        let others = [
            "",
            "b",
            "viewz",
            "identifies",
            "displayInRect!!?",
            "optionalStringXZ",
            &long[1..],
        ];
        let a = map_doc(&keys, 1);
        let b = map_doc(&keys, 100);
        let c = map_doc(&others, 1);
        let (da, db, dc) = (
            crate::Document::open(&a).unwrap(),
            crate::Document::open(&b).unwrap(),
            crate::Document::open(&c).unwrap(),
        );
        let (ma, mb, mc) = (
            da.root().as_map().unwrap(),
            db.root().as_map().unwrap(),
            dc.root().as_map().unwrap(),
        );
        let (sa, sb, sc) = (ma.slots(), mb.slots(), mc.slots());
        assert_eq!(sa.len(), keys.len());
        assert_eq!(sa.shape_offset(), ma.shape_offset());
        for i in 0..keys.len() {
            assert_eq!(sa.key(i), Some(keys[i]));
            assert_eq!(sa.value(i).and_then(|v| v.as_i64()), Some(1 + i as i64));
            assert_eq!(sb.value(i).and_then(|v| v.as_i64()), Some(100 + i as i64));
            assert_eq!(
                sa.try_value(i).unwrap().and_then(|v| v.as_i64()),
                Some(1 + i as i64)
            );
            let rec = sa.key_record(i).unwrap();
            assert_eq!(rec.is_empty(), keys[i].is_empty());
            assert!(rec.ends_with(keys[i].as_bytes()));
            for j in 0..keys.len() {
                assert_eq!(sb.key_record_is(j, rec), i == j, "key {i} vs {j}");
                // Keys of other bytes (the empty key apart) never match.
                assert_eq!(
                    sc.key_record_is(j, rec),
                    i == 0 && j == 0,
                    "other {i} vs {j}"
                );
            }
        }
        assert_eq!(sa.key(keys.len()), None);
        assert_eq!(sa.key_record(keys.len()), None);
        assert!(sa.value(keys.len()).is_none());
        assert!(!sa.key_record_is(keys.len(), b"\x81a"));
        let empty = Map::empty().slots();
        assert!(empty.is_empty());
        assert_eq!(empty.shape_offset(), None);
        assert!(!empty.key_record_is(0, &[]));
    }

    /// `ArraySlots` reads what `Array` reads (small integers in slots,
    /// integer records of every width, other records).
    #[test]
    fn array_slots_agree_with_array() {
        let vals = [0i64, 5, -7, 300, -40_000, 1 << 40, i64::MIN, i64::MAX];
        let mut enc = crate::Encoder::new();
        enc.begin_array().unwrap();
        for v in vals {
            enc.i64(v).unwrap();
        }
        enc.str("text").unwrap();
        enc.null().unwrap();
        enc.end_array().unwrap();
        let bytes = enc.finish().unwrap();
        for lazy in [false, true] {
            let doc = if lazy {
                crate::Document::open_lazy(&bytes).unwrap()
            } else {
                crate::Document::open(&bytes).unwrap()
            };
            let a = doc.root().as_array().unwrap();
            let s = a.slots();
            assert_eq!(s.len(), vals.len() + 2);
            for i in 0..s.len() {
                let (x, y) = (s.value(i).unwrap(), a.get(i).unwrap());
                assert_eq!(x, y, "element {i}");
                assert_eq!(x.type_name(), y.type_name());
            }
            assert!(s.value(s.len()).is_none());
        }
        assert!(crate::Array::empty().slots().is_empty());
    }

    /// `Probe::matches` agrees with comparing the bytes of the string record,
    /// for short and long-form records, keys of every length around the
    /// word and tag boundaries, and records near the end of the buffer.
    #[test]
    fn probe_matches_string_records() {
        let text: Vec<u8> = (0..80u8).map(|i| b'a' + i % 26).collect();
        let mut records: Vec<Vec<u8>> = Vec::new();
        for n in [0usize, 1, 3, 6, 7, 8, 9, 63, 64, 70] {
            let s = &text[..n];
            if n <= SHORT_STR_MAX {
                let mut r = vec![TAG_SHORT_STR | n as u8];
                r.extend_from_slice(s);
                records.push(r);
            }
            let mut r = vec![TAG_STR];
            write_varint(&mut r, n as u64);
            r.extend_from_slice(s);
            records.push(r);
        }
        records.push(vec![TAG_I8, 5]);
        for rec in &records {
            for pad in [0usize, 3, 8] {
                let mut buf = rec.clone();
                buf.extend(std::iter::repeat_n(0xEE, pad));
                let stored = str_record(&buf, 0);
                for n in [0usize, 1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 70] {
                    for key in [&text[..n], &b"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"[..n]] {
                        let probe = Probe::new(key);
                        assert_eq!(
                            probe.matches(&buf, 0),
                            stored == Some(key),
                            "record {rec:02x?} pad {pad} key {key:?}"
                        );
                        if (1..=7).contains(&n) {
                            let sk = ShortKey::new(key);
                            assert_eq!(
                                sk.matches(&buf, 0, key),
                                stored == Some(key),
                                "short key: record {rec:02x?} pad {pad} key {key:?}"
                            );
                            assert_eq!(sk.hash, key_hash(key));
                            // The handle's inline check uses the probe's
                            // record word and mask: the same as `ShortKey`.
                            assert_eq!((sk.record, sk.mask), (probe.record, probe.mask));
                        }
                    }
                }
            }
        }
    }
}
