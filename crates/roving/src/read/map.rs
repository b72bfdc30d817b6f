//! Maps read in place: key lookup through the shared shape, with an optional
//! reusable [`KeyHandle`] that remembers the slot of a key per shape.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::format::*;
use crate::read::value::{as_str, read_slot, slot_value, str_record, Slot, Value};

/// The key list of one or more maps, with its hash index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape<'a> {
    buf: &'a [u8],
    /// Position of the shape record.
    pub(crate) pos: usize,
    /// Position of the first key slot.
    keys: usize,
    pub(crate) count: usize,
    width: usize,
    /// Position of the index (meaningful when `count > SHAPE_LINEAR_MAX`).
    index: usize,
    table: usize,
    entry: usize,
}

impl<'a> Shape<'a> {
    const EMPTY: Shape<'static> = Shape {
        buf: &[],
        pos: 0,
        keys: 0,
        count: 0,
        width: 1,
        index: 0,
        table: 0,
        entry: 1,
    };

    #[inline]
    pub(crate) fn at(buf: &'a [u8], pos: usize) -> Option<Shape<'a>> {
        let tag = *buf.get(pos)?;
        if tag & !3 != TAG_SHAPE {
            return None;
        }
        let width = WIDTHS[(tag & 3) as usize];
        let (count, keys) = read_varint(buf, pos + 1)?;
        let count = usize::try_from(count).ok()?;
        let index = keys.checked_add(count.checked_mul(width)?)?;
        let (table, entry) = if count > SHAPE_LINEAR_MAX {
            (index_table_size(count), index_entry_width(count))
        } else {
            (0, 1)
        };
        Some(Shape {
            buf,
            pos,
            keys,
            count,
            width,
            index,
            table,
            entry,
        })
    }

    /// End of the shape record.
    pub(crate) fn end(&self) -> usize {
        self.index + self.table * self.entry
    }

    /// Bytes of key `i`.
    #[inline(always)]
    pub(crate) fn key_bytes(&self, i: usize) -> Option<&'a [u8]> {
        match read_slot(self.buf, self.keys + i * self.width, self.width, self.pos)? {
            Slot::Ref(p) => str_record(self.buf, p),
            Slot::Special(SPECIAL_EMPTY_STR) => Some(&[]),
            _ => None,
        }
    }

    /// Position of the record of key `i` (`None` for the empty-string immediate).
    pub(crate) fn key_record(&self, i: usize) -> Option<Option<usize>> {
        match read_slot(self.buf, self.keys + i * self.width, self.width, self.pos)? {
            Slot::Ref(p) => Some(Some(p)),
            Slot::Special(SPECIAL_EMPTY_STR) => Some(None),
            _ => None,
        }
    }

    /// Raw entry `i` of the hash index (0 = empty, else key index + 1).
    #[inline(always)]
    pub(crate) fn entry(&self, i: usize) -> Option<usize> {
        read_uint(self.buf, self.index + i * self.entry, self.entry).map(|e| e as usize)
    }

    pub(crate) fn table_size(&self) -> usize {
        self.table
    }

    /// Index of `key` in this shape.
    #[inline]
    pub(crate) fn find(&self, key: &[u8]) -> Option<usize> {
        if self.count <= SHAPE_LINEAR_MAX {
            return (0..self.count).find(|&i| self.key_bytes(i) == Some(key));
        }
        self.find_hashed(key, key_hash(key))
    }

    #[inline]
    pub(crate) fn find_hashed(&self, key: &[u8], hash: u64) -> Option<usize> {
        if self.count <= SHAPE_LINEAR_MAX {
            return self.find(key);
        }
        let mask = self.table - 1;
        let mut i = index_home(hash, self.table);
        for _ in 0..self.table {
            let e = self.entry(i)?;
            if e == 0 {
                return None;
            }
            if self.key_bytes(e - 1) == Some(key) {
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
#[derive(Clone, Copy, Debug)]
pub struct Map<'a> {
    buf: &'a [u8],
    base: usize,
    shape: Shape<'a>,
    values: usize,
    width: usize,
}

impl<'a> Map<'a> {
    pub(crate) fn empty() -> Map<'a> {
        Map {
            buf: &[],
            base: 0,
            shape: Shape::EMPTY,
            values: 0,
            width: 1,
        }
    }

    #[inline]
    pub(crate) fn at(buf: &'a [u8], pos: usize, width: usize) -> Option<Map<'a>> {
        let (shape_pos, values) = map_shape_ref(buf, pos)?;
        let shape = Shape::at(buf, shape_pos)?;
        Some(Map {
            buf,
            base: pos,
            shape,
            values,
            width,
        })
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.shape.count
    }

    /// True if there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.shape.count == 0
    }

    /// Value `i` in insertion order.
    #[inline]
    pub fn value_at(&self, i: usize) -> Option<Value<'a>> {
        if i >= self.shape.count {
            return None;
        }
        let slot = read_slot(self.buf, self.values + i * self.width, self.width, self.base);
        Some(slot_value(self.buf, slot))
    }

    /// Key `i` in insertion order.
    #[inline]
    pub fn key_at(&self, i: usize) -> Option<&'a str> {
        if i >= self.shape.count {
            return None;
        }
        self.shape.key_bytes(i).map(as_str)
    }

    /// Position of `key` in insertion order.
    #[inline]
    pub fn position(&self, key: &str) -> Option<usize> {
        self.shape.find(key.as_bytes())
    }

    /// The value of `key`, without allocating: a hash probe for maps of more
    /// than eight keys, a scan otherwise.
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        let i = self.shape.find(key.as_bytes())?;
        self.value_at(i)
    }

    /// The value of the handle's key; after the first lookup in maps of one
    /// shape, lookups in other maps of that shape read the slot directly.
    #[inline]
    pub fn get_with(&self, handle: &KeyHandle) -> Option<Value<'a>> {
        let cached = handle.cache.load(Ordering::Relaxed);
        let shape_tag = self.shape.pos as u64 + 1;
        let guess = (cached & 0xFFFF_FFFF) as usize;
        // The cached slot is checked against the key, so a handle shared
        // between documents never returns another key's value.
        let i = if cached >> 32 == shape_tag
            && guess < self.shape.count
            && self.shape.key_bytes(guess) == Some(handle.key.as_bytes())
        {
            guess
        } else {
            let i = self.shape.find_hashed(handle.key.as_bytes(), handle.hash)?;
            if shape_tag < (1 << 32) && i < (1 << 32) && !self.buf.is_empty() {
                handle
                    .cache
                    .store((shape_tag << 32) | i as u64, Ordering::Relaxed);
            }
            i
        };
        self.value_at(i)
    }

    /// The entries in insertion order.
    pub fn iter(&self) -> MapIter<'a> {
        MapIter {
            map: *self,
            next: 0,
        }
    }

    /// The keys in insertion order.
    pub fn keys(&self) -> impl Iterator<Item = &'a str> + 'a {
        let m = *self;
        (0..m.len()).map(move |i| m.key_at(i).unwrap_or(""))
    }

    /// The values in insertion order.
    pub fn values(&self) -> impl Iterator<Item = Value<'a>> + 'a {
        let m = *self;
        (0..m.len()).map(move |i| m.value_at(i).unwrap_or(Value::Null))
    }

    /// Byte offset of this map's record (`None` for the empty map immediate).
    pub fn offset(&self) -> Option<usize> {
        (!self.buf.is_empty()).then_some(self.base)
    }

    /// Byte offset of the shape (key list) record this map uses; maps with
    /// equal shape offsets have the same keys in the same order.
    pub fn shape_offset(&self) -> Option<usize> {
        (!self.buf.is_empty()).then_some(self.shape.pos)
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
    map: Map<'a>,
    next: usize,
}

impl<'a> Iterator for MapIter<'a> {
    type Item = (&'a str, Value<'a>);

    #[inline]
    fn next(&mut self) -> Option<(&'a str, Value<'a>)> {
        let i = self.next;
        if i >= self.map.len() {
            return None;
        }
        self.next += 1;
        Some((
            self.map.key_at(i).unwrap_or(""),
            self.map.value_at(i).unwrap_or(Value::Null),
        ))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.map.len() - self.next.min(self.map.len());
        (n, Some(n))
    }
}

impl ExactSizeIterator for MapIter<'_> {}

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
