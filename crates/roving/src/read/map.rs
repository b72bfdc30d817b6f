//! Maps read in place: key lookup through the shared shape, with an optional
//! reusable [`KeyHandle`] that remembers the slot of a key per shape.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::format::*;
use crate::read::value::{as_str, read_slot, slot_value, str_record, Slot, Value};

/// The key list of one or more maps, with its hash index. Kept small (the
/// buffer is passed in) because it travels inside every [`Map`] value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Position of the shape record.
    pub(crate) pos: usize,
    /// Position of the first key slot.
    keys: usize,
    pub(crate) count: usize,
    width: u8,
}

impl Shape {
    const EMPTY: Shape = Shape {
        pos: 0,
        keys: 0,
        count: 0,
        width: 1,
    };

    #[inline]
    pub(crate) fn at(buf: &[u8], pos: usize) -> Option<Shape> {
        let tag = *buf.get(pos)?;
        if tag & !3 != TAG_SHAPE {
            return None;
        }
        let (count, keys) = read_varint(buf, pos + 1)?;
        // A count beyond the buffer length cannot be valid; refusing it here
        // keeps all later arithmetic in range even for unvalidated bytes.
        Some(Shape {
            pos,
            keys,
            count: usize::try_from(count).ok().filter(|&c| c <= buf.len())?,
            width: WIDTHS[(tag & 3) as usize] as u8,
        })
    }

    #[inline(always)]
    fn index_pos(&self) -> usize {
        self.keys + self.count * self.width as usize
    }

    /// End of the shape record.
    pub(crate) fn end(&self) -> usize {
        self.index_pos() + self.table_size() * index_entry_width(self.count)
    }

    /// Bytes of key `i`.
    #[inline(always)]
    pub(crate) fn key_bytes<'a>(&self, buf: &'a [u8], i: usize) -> Option<&'a [u8]> {
        let w = self.width as usize;
        match read_slot(buf, self.keys + i * w, w, self.pos)? {
            Slot::Ref(p) => str_record(buf, p),
            Slot::Special(SPECIAL_EMPTY_STR) => Some(&[]),
            _ => None,
        }
    }

    /// Whether key `i` is `key`.
    #[inline(always)]
    fn key_is(&self, buf: &[u8], i: usize, key: &[u8]) -> bool {
        self.key_bytes(buf, i).is_some_and(|k| bytes_eq(k, key))
    }

    /// Position of the record of key `i` (`None` for the empty-string immediate).
    pub(crate) fn key_record(&self, buf: &[u8], i: usize) -> Option<Option<usize>> {
        let w = self.width as usize;
        match read_slot(buf, self.keys + i * w, w, self.pos)? {
            Slot::Ref(p) => Some(Some(p)),
            Slot::Special(SPECIAL_EMPTY_STR) => Some(None),
            _ => None,
        }
    }

    /// Raw entry `i` of the hash index (0 = empty, else key index + 1).
    #[inline(always)]
    pub(crate) fn entry(&self, buf: &[u8], i: usize) -> Option<usize> {
        let e = index_entry_width(self.count);
        read_uint(buf, self.index_pos() + i * e, e).map(|e| e as usize)
    }

    pub(crate) fn table_size(&self) -> usize {
        if self.count > SHAPE_LINEAR_MAX {
            index_table_size(self.count)
        } else {
            0
        }
    }

    /// Index of `key` in this shape.
    #[inline]
    pub(crate) fn find(&self, buf: &[u8], key: &[u8]) -> Option<usize> {
        if self.count <= SHAPE_LINEAR_MAX {
            return (0..self.count).find(|&i| self.key_is(buf, i, key));
        }
        self.find_hashed(buf, key, key_hash(key))
    }

    #[inline]
    pub(crate) fn find_hashed(&self, buf: &[u8], key: &[u8], hash: u64) -> Option<usize> {
        if self.count <= SHAPE_LINEAR_MAX {
            return (0..self.count).find(|&i| self.key_is(buf, i, key));
        }
        let table = index_table_size(self.count);
        let ew = index_entry_width(self.count);
        let index = self.index_pos();
        let mask = table - 1;
        let mut i = index_home(hash, table);
        for _ in 0..table {
            let e = read_uint(buf, index + i * ew, ew)? as usize;
            if e == 0 {
                return None;
            }
            if self.key_is(buf, e - 1, key) {
                return Some(e - 1);
            }
            i = (i + 1) & mask;
        }
        None
    }
}

/// Decodes the shape reference of the map record at `pos`: returns the
/// shape's position (strictly before `pos`) and the position of the first value slot.
#[inline(always)]
pub(crate) fn map_shape_ref(buf: &[u8], pos: usize) -> Option<(usize, usize)> {
    let (r, values) = read_varint(buf, pos + 1)?;
    let x = usize::try_from(r >> 1).ok()?;
    let shape = if r & 1 == 1 {
        x
    } else {
        pos.checked_sub(x).filter(|_| x > 0)?
    };
    (shape < pos).then_some((shape, values))
}

/// A map inside a document. Keys keep the writer's insertion order.
///
/// A position; its header and shape are decoded on use, so that a `Value`
/// stays two words and copying it is cheap.
#[derive(Clone, Copy, Debug)]
pub struct Map<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// A decoded map header: where the values are and the shape.
#[derive(Clone, Copy, Debug)]
struct Header {
    values: usize,
    width: usize,
    shape: Shape,
}

impl Header {
    const EMPTY: Header = Header {
        values: 0,
        width: 1,
        shape: Shape::EMPTY,
    };

    #[inline(always)]
    fn value<'a>(&self, buf: &'a [u8], base: usize, i: usize) -> Value<'a> {
        let slot = read_slot(buf, self.values + i * self.width, self.width, base);
        slot_value(buf, slot)
    }
}

impl<'a> Map<'a> {
    /// Address of the document's bytes (with [`pos`](Self::pos), the
    /// record's identity while the buffer lives).
    pub(crate) fn buf_addr(&self) -> usize {
        self.buf.as_ptr() as usize
    }

    /// Position of the record (0 for the empty immediate).
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn empty() -> Map<'a> {
        Map { buf: &[], pos: 0 }
    }

    #[inline(always)]
    pub(crate) fn at(buf: &'a [u8], pos: usize) -> Map<'a> {
        Map { buf, pos }
    }

    #[inline(always)]
    fn header(&self) -> Option<Header> {
        let tag = *self.buf.get(self.pos)?;
        let (shape_pos, values) = map_shape_ref(self.buf, self.pos)?;
        Some(Header {
            values,
            width: WIDTHS[(tag & 3) as usize],
            shape: Shape::at(self.buf, shape_pos)?,
        })
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
        (i < h.shape.count).then(|| h.value(self.buf, self.pos, i))
    }

    /// Key `i` in insertion order.
    #[inline]
    pub fn key_at(&self, i: usize) -> Option<&'a str> {
        let h = self.header()?;
        if i >= h.shape.count {
            return None;
        }
        h.shape.key_bytes(self.buf, i).map(as_str)
    }

    /// Position of `key` in insertion order.
    #[inline]
    pub fn position(&self, key: &str) -> Option<usize> {
        self.header()?.shape.find(self.buf, key.as_bytes())
    }

    /// The value of `key`, without allocating: a hash probe for maps of more
    /// than eight keys, a scan otherwise.
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        let h = self.header()?;
        let i = h.shape.find(self.buf, key.as_bytes())?;
        Some(h.value(self.buf, self.pos, i))
    }

    /// The value of the handle's key; after the first lookup in maps of one
    /// shape, lookups in other maps of that shape read the slot directly.
    #[inline]
    pub fn get_with(&self, handle: &KeyHandle) -> Option<Value<'a>> {
        let h = self.header()?;
        let cached = handle.cache.load(Ordering::Relaxed);
        let shape_tag = h.shape.pos as u64 + 1;
        let guess = (cached & 0xFFFF_FFFF) as usize;
        // The cached slot is checked against the key, so a handle shared
        // between documents never returns another key's value.
        let i = if cached >> 32 == shape_tag
            && guess < h.shape.count
            && h.shape.key_is(self.buf, guess, handle.key.as_bytes())
        {
            guess
        } else {
            let i = h
                .shape
                .find_hashed(self.buf, handle.key.as_bytes(), handle.hash)?;
            if shape_tag < (1 << 32) && i < (1 << 32) {
                handle
                    .cache
                    .store((shape_tag << 32) | i as u64, Ordering::Relaxed);
            }
            i
        };
        Some(h.value(self.buf, self.pos, i))
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> MapIter<'a> {
        MapIter {
            buf: self.buf,
            base: self.pos,
            h: self.header().unwrap_or(Header::EMPTY),
            next: 0,
        }
    }

    /// The offset of the shape (as [`shape_offset`](Self::shape_offset))
    /// and the values, from one decoding of the header (typed decoding).
    #[inline]
    pub(crate) fn shape_and_values(&self) -> (Option<usize>, MapValues<'a>) {
        let h = self.header();
        let values = MapValues(MapIter {
            buf: self.buf,
            base: self.pos,
            h: h.unwrap_or(Header::EMPTY),
            next: 0,
        });
        (h.map(|h| h.shape.pos), values)
    }

    /// The keys in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.iter().map(|(k, _)| k)
    }

    /// The values in insertion order.
    pub fn values(&self) -> MapValues<'a> {
        MapValues(self.iter())
    }

    /// Byte offset of this map's record (`None` for the empty map immediate).
    pub fn offset(&self) -> Option<usize> {
        (!self.buf.is_empty()).then_some(self.pos)
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

/// Iterator over the entries of a [`Map`].
#[derive(Clone, Debug)]
pub struct MapIter<'a> {
    buf: &'a [u8],
    base: usize,
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
        let k = self.h.shape.key_bytes(self.buf, i).map_or("", as_str);
        Some((k, self.h.value(self.buf, self.base, i)))
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
        Some(it.h.value(it.buf, it.base, i))
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
#[derive(Debug)]
pub struct KeyHandle {
    key: Box<str>,
    hash: u64,
    cache: AtomicU64,
}

impl KeyHandle {
    /// A handle for `key`.
    pub fn new(key: &str) -> KeyHandle {
        KeyHandle {
            key: key.into(),
            hash: key_hash(key.as_bytes()),
            cache: AtomicU64::new(0),
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
            hash: self.hash,
            cache: AtomicU64::new(self.cache.load(Ordering::Relaxed)),
        }
    }
}
