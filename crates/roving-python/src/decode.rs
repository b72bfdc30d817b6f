//! roving -> Python objects (untyped): `loads`, `View.to_python`.
//!
//! Recursive with an explicit depth limit, an expansion budget, a memo of
//! containers by record offset (a value stored once and referenced twice
//! comes back as one object) and caches of key and short value strings by
//! record offset (each distinct string is one record in a document).

use std::hash::{BuildHasherDefault, Hasher};

use hashbrown::HashMap;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDate, PyDelta, PyTime, PyTzInfo};

use roving::format::{
    array_record_parts, f32_to_f64_exact, f_dec_value, map_record_parts, scalar_slot,
    ArrayRecordParts, ScalarSlot,
};
use roving::read::Numbers;
use roving::{Array, Limits, Map, Value};

use crate::base_shapes::BaseShapes;
use crate::dictiter;
use crate::errors::{decode_error, from_core};
use crate::pytypes::{self, EXT_DATE, EXT_DECIMAL, EXT_TIME, EXT_TIMEDELTA, EXT_UUID};
use crate::times;

/// Maximum nesting depth when converting to Python objects.
pub(crate) const MAX_DEPTH: usize = 10_000;

/// Levels converted before the stack is checked: these few fit easily in
/// the stack kept in reserve (see `stack::limit`), and documents no deeper
/// (store records) skip looking up the thread's stack limit.
const STACK_CHECK_DEPTH: usize = 8;

/// A hasher for integer keys (record offsets, pointers).
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        // Combines with what was written before (tuple keys write twice).
        self.0 = (self.0 ^ n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(26);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.write_usize(n as usize);
    }
}

/// Map with integer keys.
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

const STR_CACHE: usize = 1024;
const STR_CACHE_MAX_LEN: usize = 48;
/// Documents shorter than this get no string cache.
const STR_CACHE_MIN_DOC: usize = 1024;

/// Pauses the cyclic garbage collector while a document is converted:
/// building thousands of fresh containers would otherwise trigger
/// collections that scan them again and again. Restores the previous state.
pub(crate) struct GcPause(bool);

impl GcPause {
    pub(crate) fn new() -> GcPause {
        // SAFETY: plain C API call with the thread attached.
        GcPause(unsafe { ffi::PyGC_Disable() } == 1)
    }
}

impl Drop for GcPause {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: plain C API call with the thread attached.
            unsafe { ffi::PyGC_Enable() };
        }
    }
}

/// Owned references to Python objects, released on drop.
pub(crate) struct Owned(pub(crate) Vec<*mut ffi::PyObject>);

impl Owned {
    /// Releases the references and empties the list, keeping its memory.
    fn clear(&mut self) {
        for &p in &self.0 {
            // SAFETY: every pointer in the list is an owned reference (or NULL),
            // and decoders only live while the thread is attached to Python.
            unsafe { ffi::Py_XDECREF(p) };
        }
        self.0.clear();
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Keys up to this many bytes are kept in the [`KEY_CACHE`].
const KEY_CACHE_MAX_LEN: usize = 24;

/// Entries of the [`KEY_CACHE`] (a power of two).
const KEY_CACHE_SIZE: usize = 256;

/// An entry of the key cache: the key's bytes (zero-padded) and length,
/// and its interned str (an owned reference), or an empty entry (`obj` NULL).
#[derive(Clone, Copy)]
struct KeyEntry {
    bytes: [u8; KEY_CACHE_MAX_LEN],
    len: usize,
    obj: *mut ffi::PyObject,
}

/// Interned str objects of short keys by their bytes: a store's records
/// (one small document each) name the same few keys, which are then not
/// made and interned again on each read. Two-way set associative: a key
/// has a home entry and its neighbour (index ^ 1); a new key takes its
/// home entry and moves the key there to the neighbour, so two keys with
/// one home (`name` and `tags` share one) are both kept instead of
/// evicting each other on every document. Bounded (256 keys of at most 24
/// bytes); the references it holds are never released (entries it evicts
/// are), so a thread's exit needs no attached thread.
struct KeyCache(Box<[KeyEntry; KEY_CACHE_SIZE]>);

thread_local! {
    static KEY_CACHE: std::cell::RefCell<KeyCache> = std::cell::RefCell::new(KeyCache(Box::new(
        [KeyEntry { bytes: [0; KEY_CACHE_MAX_LEN], len: 0, obj: std::ptr::null_mut() };
            KEY_CACHE_SIZE],
    )));
}

/// `b` (at most [`KEY_CACHE_MAX_LEN`] bytes) zero-padded, and its entry.
#[inline(always)]
fn key_slot(b: &[u8]) -> ([u8; KEY_CACHE_MAX_LEN], usize) {
    let mut k = [0u8; KEY_CACHE_MAX_LEN];
    k[..b.len()].copy_from_slice(b);
    let w = |i: usize| {
        u64::from_le_bytes([
            k[i],
            k[i + 1],
            k[i + 2],
            k[i + 3],
            k[i + 4],
            k[i + 5],
            k[i + 6],
            k[i + 7],
        ])
    };
    let h = (w(0) ^ w(8).rotate_left(21) ^ w(16).rotate_left(42) ^ b.len() as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (k, (h >> 56) as usize & (KEY_CACHE_SIZE - 1))
}

impl KeyCache {
    /// The cached str for `b` (a new reference), if any.
    #[inline(always)]
    fn get(&self, b: &[u8]) -> Option<*mut ffi::PyObject> {
        if b.len() > KEY_CACHE_MAX_LEN {
            return None;
        }
        let (k, h) = key_slot(b);
        let hit = |e: &KeyEntry| !e.obj.is_null() && e.len == b.len() && e.bytes == k;
        let e = if hit(&self.0[h]) {
            &self.0[h]
        } else if hit(&self.0[h ^ 1]) {
            &self.0[h ^ 1]
        } else {
            return None;
        };
        // SAFETY: `e.obj` is a live str, owned by the cache; the caller
        // gets a new reference.
        unsafe { ffi::Py_INCREF(e.obj) };
        Some(e.obj)
    }

    /// Keeps `p` (a live str, for key bytes `b`, not in the cache) in its
    /// home entry, the key there (if any) moving to the neighbour; returns the
    /// reference evicted from the neighbour (or NULL), for the caller to
    /// release once the cache is no longer borrowed.
    fn insert(&mut self, b: &[u8], p: *mut ffi::PyObject) -> *mut ffi::PyObject {
        let (k, h) = key_slot(b);
        let mut old = std::ptr::null_mut();
        if !self.0[h].obj.is_null() {
            old = self.0[h ^ 1].obj;
            self.0[h ^ 1] = self.0[h];
        }
        // SAFETY: `p` is a live str; the cache takes its own reference.
        unsafe { ffi::Py_INCREF(p) };
        self.0[h] = KeyEntry {
            bytes: k,
            len: b.len(),
            obj: p,
        };
        old
    }
}

/// Interned strs for the keys of `m` (new references), pushed to `out`:
/// from the key cache when short and seen before, else made, interned
/// (and cached).
pub(crate) fn interned_keys(
    py: Python<'_>,
    m: &Map<'_>,
    out: &mut Vec<*mut ffi::PyObject>,
) -> PyResult<()> {
    let start = out.len();
    // One access for all the keys. (The cache is busy only if a decode ran
    // inside another's access: then it is not used.)
    let all = KEY_CACHE.with(|c| {
        let Ok(c) = c.try_borrow() else {
            return false;
        };
        let mut all = true;
        for k in m.keys() {
            let p = c.get(k.as_bytes());
            all &= p.is_some();
            out.push(p.unwrap_or(std::ptr::null_mut()));
        }
        all
    });
    if all {
        return Ok(());
    }
    for p in out.drain(start..) {
        // SAFETY: the cache's hits are new references (or NULL), dropped here.
        unsafe { ffi::Py_XDECREF(p) };
    }
    // Not all cached: one key at a time (a new key, or a cache in use).
    for k in m.keys() {
        out.push(interned_key(py, k.as_bytes())?);
    }
    Ok(())
}

/// An interned str for key bytes `b` (a new reference): from the key cache
/// when `b` is short and was seen before, else made, interned (and cached).
pub(crate) fn interned_key(py: Python<'_>, b: &[u8]) -> PyResult<*mut ffi::PyObject> {
    if b.len() > KEY_CACHE_MAX_LEN {
        return new_interned(py, b);
    }
    let hit = KEY_CACHE.with(|c| c.try_borrow().ok()?.get(b));
    if let Some(p) = hit {
        return Ok(p);
    }
    let p = new_interned(py, b)?;
    let old = KEY_CACHE.with(|c| Some(c.try_borrow_mut().ok()?.insert(b, p)));
    if let Some(old) = old {
        // SAFETY: `old` was the cache's own reference (or NULL); released
        // once the cache is no longer borrowed.
        unsafe { ffi::Py_XDECREF(old) };
    }
    Ok(p)
}

/// A new interned str for `b` (a new reference).
fn new_interned(py: Python<'_>, b: &[u8]) -> PyResult<*mut ffi::PyObject> {
    let mut p = pytypes::make_str(py, b)?.into_ptr();
    // SAFETY: `p` is an owned str; interning may swap it for another
    // owned reference, which the caller then owns.
    unsafe { ffi::PyUnicode_InternInPlace(&mut p) };
    Ok(p)
}

/// The key strings of one shape, and the dict template of its maps.
struct ShapeKeys {
    /// Index of the first key in `key_store`.
    start: usize,
    /// Number of keys in `key_store` from `start`.
    len: usize,
    /// Dicts of this shape built so far (a template is made for the second).
    uses: usize,
    /// A dict with these keys (values None), or NULL.
    template: *mut ffi::PyObject,
}

/// Shapes of fewer keys than this get no dict template. Filled in place,
/// a template's copy is faster from 2 keys on (1000people: 3.7% fewer
/// instructions than from 6 on); filled with PyDict_SetItem, from 6 keys on.
#[inline]
fn template_min_keys() -> usize {
    if dictiter::fills_in_place() {
        2
    } else {
        6
    }
}

/// A shape offset no shape has (empty entries of `recent_shapes`; the
/// empty map, which has no shape record, goes by `usize::MAX`).
const NO_SHAPE: usize = usize::MAX - 1;

/// Shapes with more keys than this are taken for data (a dict keyed by ids,
/// say) rather than records: their keys are not interned.
const INTERN_KEYS_MAX: usize = 64;

/// Objects by record offset: an open-addressing table with linear probing
/// of (offset + 1, index into `objs`) pairs, small enough to stay in cache
/// (a lookup and an insert per container, so cheaper than a general map
/// matters). Offsets beyond `u32` (documents over 4 GiB) go to `far`.
#[derive(Default)]
pub(crate) struct OffsetMemo {
    /// (offset + 1, index in `objs`); 0 marks a free entry.
    table: Vec<(u32, u32)>,
    objs: Vec<*mut ffi::PyObject>,
    far: IdMap<usize, *mut ffi::PyObject>,
}

impl OffsetMemo {
    #[inline(always)]
    fn slot(key: u32, mask: usize) -> usize {
        ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
    }

    #[inline(always)]
    fn key(off: usize) -> Option<u32> {
        u32::try_from(off).ok().and_then(|o| o.checked_add(1))
    }

    /// The object stored for `off`.
    #[inline]
    pub(crate) fn get(&self, off: usize) -> Option<*mut ffi::PyObject> {
        let Some(key) = Self::key(off) else {
            return self.far.get(&off).copied();
        };
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut i = Self::slot(key, mask);
        loop {
            let (k, j) = self.table[i];
            if k == key {
                return self.objs.get(j as usize).copied();
            }
            if k == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `p` for `off` (which is not stored yet).
    #[inline]
    pub(crate) fn insert(&mut self, off: usize, p: *mut ffi::PyObject) {
        let (Some(key), Ok(j)) = (Self::key(off), u32::try_from(self.objs.len())) else {
            self.far.insert(off, p);
            return;
        };
        if (self.objs.len() + 1) * 2 > self.table.len() {
            self.grow((self.objs.len() + 1) * 2);
        }
        let mask = self.table.len() - 1;
        let mut i = Self::slot(key, mask);
        while self.table[i].0 != 0 {
            i = (i + 1) & mask;
        }
        self.table[i] = (key, j);
        self.objs.push(p);
    }

    /// Makes room for `n` entries.
    pub(crate) fn reserve(&mut self, n: usize) {
        if n * 2 > self.table.len() {
            self.grow(n * 2);
        }
        self.objs.reserve(n);
    }

    #[cold]
    fn grow(&mut self, min: usize) {
        let cap = min.max(16).next_power_of_two();
        let old = std::mem::replace(&mut self.table, vec![(0, 0); cap]);
        let mask = cap - 1;
        for (k, j) in old {
            if k != 0 {
                let mut i = Self::slot(k, mask);
                while self.table[i].0 != 0 {
                    i = (i + 1) & mask;
                }
                self.table[i] = (k, j);
            }
        }
    }

    /// Forgets every entry, keeping the memory (the objects are not
    /// released: the caller does that first).
    fn clear(&mut self) {
        self.table.fill((0, 0));
        self.objs.clear();
        self.far.clear();
    }

    /// True if no object is stored.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.objs.is_empty() && self.far.is_empty()
    }

    /// The stored objects.
    pub(crate) fn values(&self) -> impl Iterator<Item = *mut ffi::PyObject> + '_ {
        self.objs.iter().chain(self.far.values()).copied()
    }
}

/// The tables of a [`Decoder`], emptied after each document and kept for
/// the thread's next one: converting a small document (a store record, a
/// message) then allocates nothing, where these tables cost five
/// allocations and their frees, a good part of a small document's time.
#[derive(Default)]
struct Scratch {
    shapes: IdMap<usize, usize>,
    shape_list: Vec<ShapeKeys>,
    key_store: Vec<*mut ffi::PyObject>,
    memo: OffsetMemo,
}

/// A kept memo table of up to this many entries is cleared and reused
/// whatever the document's use of it (see [`Decoder::return_scratch`]).
const MEMO_KEEP_MIN: usize = 64;

impl Scratch {
    /// Whether these (emptied) tables are small enough to keep for the
    /// next document: a big document's are freed, as they would be without
    /// reuse, instead of holding memory (and being cleared) on every call.
    fn fits_spare(&self) -> bool {
        const MAX: usize = 1 << 12;
        self.shapes.capacity() <= MAX
            && self.shape_list.capacity() <= MAX
            && self.key_store.capacity() <= MAX
            && self.memo.table.len() <= 4 * MAX
            && self.memo.objs.capacity() <= 2 * MAX
            && self.memo.far.capacity() == 0
    }
}

thread_local! {
    /// The thread's spare [`Scratch`]: taken by a decoder when it first
    /// needs a table, put back when it is dropped. A decoder running inside
    /// another's conversion (a `__post_init__` that calls `loads`, say)
    /// finds none and allocates its own.
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

/// Per-call conversion state.
pub(crate) struct Decoder<'py, 'a> {
    pub(crate) py: Python<'py>,
    /// The document's bytes.
    buf: &'a [u8],
    base: usize,
    end: usize,
    /// Index in `shape_list` of each shape record seen, by shape offset.
    shapes: IdMap<usize, usize>,
    /// Key strings and dict template of each shape seen.
    shape_list: Vec<ShapeKeys>,
    key_store: Owned,
    /// The two shapes used last, (shape offset, index in `shape_list`), most
    /// recent first: records alternate between a few shapes (a person and
    /// the friends inside it), which then need no hash lookup.
    recent_shapes: [(usize, usize); 2],
    /// The document's bytes, when every container converted is read from
    /// them (see [`Decoder::read_in_place`]); else empty.
    doc: &'a [u8],
    /// Direct-mapped cache of short value strings: (data address, owned str).
    strs: Box<[(usize, *mut ffi::PyObject)]>,
    /// Length of the document if `strs` is not empty, else 0 (strings
    /// outside `base..base + cache_span` are not cached).
    cache_span: usize,
    /// Containers already built, by record offset: owned references, or
    /// borrowed ones (see [`Decoder::borrow_memo`]).
    memo: OffsetMemo,
    owned_memo: bool,
    budget: u64,
    max_values: u64,
    depth: usize,
    max_depth: usize,
    /// The thread's stack limit ([`crate::stack::limit`]), 0 until needed.
    stack_limit: usize,
    /// Whether the thread's spare tables were looked for ([`Scratch`]).
    adopted: bool,
    /// Shapes of the dictionary base this document starts with, kept from
    /// document to document ([`Decoder::keep_base_shapes`]).
    base_shapes: Option<&'a mut BaseShapes>,
    /// The length of that base (shapes at lower offsets are its own).
    base_len: usize,
}

impl Drop for Decoder<'_, '_> {
    fn drop(&mut self) {
        for &(_, p) in self.strs.iter() {
            // SAFETY: cache entries are owned references or NULL.
            unsafe { ffi::Py_XDECREF(p) };
        }
        if self.owned_memo && !self.memo.is_empty() {
            for p in self.memo.values() {
                // SAFETY: memo entries are owned references (owned_memo).
                unsafe { ffi::Py_DECREF(p) };
            }
        }
        for sk in &self.shape_list {
            // SAFETY: templates are owned references or NULL.
            unsafe { ffi::Py_XDECREF(sk.template) };
        }
        if self.adopted {
            self.return_scratch();
        }
    }
}

impl<'py, 'a> Decoder<'py, 'a> {
    /// A decoder for values of the document `buf` (inline: built in place
    /// inside its owner, no copy of the struct per document).
    #[inline(always)]
    pub(crate) fn new(py: Python<'py>, buf: &'a [u8]) -> Decoder<'py, 'a> {
        let limits = Limits::for_len(buf.len());
        let cached = buf.len() >= STR_CACHE_MIN_DOC;
        Decoder {
            py,
            buf,
            base: buf.as_ptr() as usize,
            end: buf.as_ptr() as usize + buf.len(),
            shapes: IdMap::default(),
            shape_list: Vec::new(),
            key_store: Owned(Vec::new()),
            recent_shapes: [(NO_SHAPE, 0); 2],
            doc: &[],
            // Small documents (a store record, say) rarely repeat a string:
            // no cache to allocate and release.
            cache_span: if cached { buf.len() } else { 0 },
            strs: if !cached {
                Box::default()
            } else {
                vec![
                    (0usize, std::ptr::null_mut());
                    (buf.len() / 64).clamp(16, STR_CACHE).next_power_of_two()
                ]
                .into_boxed_slice()
            },
            memo: OffsetMemo::default(),
            owned_memo: true,
            budget: limits.max_values,
            max_values: limits.max_values,
            depth: 0,
            max_depth: MAX_DEPTH.min(limits.max_depth),
            stack_limit: 0,
            adopted: false,
            base_shapes: None,
            base_len: 0,
        }
    }

    /// Reads the shapes of this document's first `base_len` bytes, the
    /// base of the dictionary it is bound to
    /// ([`roving::Dictionary::bound_base_len`]), through `kept`, which
    /// keeps their key strings and dict templates for the next document
    /// bound to that dictionary.
    pub(crate) fn keep_base_shapes(&mut self, kept: &'a mut BaseShapes, base_len: usize) {
        if let Some(base) = self.buf.get(..base_len) {
            if kept.sync(base) {
                self.base_shapes = Some(kept);
                self.base_len = base_len;
            }
        }
    }

    /// Takes the thread's spare tables ([`Scratch`]) for those this
    /// decoder has not allocated yet; called before a table is first
    /// filled. Looks once per decoder.
    #[inline(always)]
    fn adopt_scratch(&mut self) {
        if !self.adopted {
            self.take_scratch();
        }
    }

    /// [`adopt_scratch`](Self::adopt_scratch)'s first call.
    #[cold]
    #[inline(never)]
    fn take_scratch(&mut self) {
        self.adopted = true;
        let Some(s) = SCRATCH.try_with(|c| c.take()).ok().flatten() else {
            return;
        };
        if self.shapes.capacity() == 0 {
            self.shapes = s.shapes;
        }
        if self.shape_list.capacity() == 0 {
            self.shape_list = s.shape_list;
        }
        if self.key_store.0.capacity() == 0 {
            self.key_store.0 = s.key_store;
        }
        if self.memo.table.is_empty() && self.memo.objs.capacity() == 0 {
            self.memo = s.memo;
        }
    }

    /// Empties this decoder's tables (their objects already released by
    /// `drop`, the keys' here) and keeps them as the thread's spare, if
    /// small enough.
    fn return_scratch(&mut self) {
        self.key_store.clear();
        let mut s = Scratch {
            shapes: std::mem::take(&mut self.shapes),
            shape_list: std::mem::take(&mut self.shape_list),
            key_store: std::mem::take(&mut self.key_store.0),
            memo: std::mem::take(&mut self.memo),
        };
        if s.fits_spare() {
            s.shape_list.clear();
            s.shapes.clear();
            // A memo table much bigger than this document needed (grown by
            // an earlier, bigger one) is freed rather than cleared: small
            // documents after a big one would otherwise each clear it all.
            if s.memo.table.len() > MEMO_KEEP_MIN && s.memo.objs.len() * 8 < s.memo.table.len() {
                s.memo = OffsetMemo::default();
            } else {
                s.memo.clear();
            }
            // (Fails only while the thread exits: the tables are freed.)
            let _ = SCRATCH.try_with(|c| c.set(Some(s)));
        }
    }

    #[cold]
    fn depth_error(&self) -> PyErr {
        decode_error(
            self.py,
            format!(
                "nesting depth limit exceeded: more than {} levels",
                self.max_depth
            ),
            None,
        )
    }

    #[cold]
    fn budget_error(&self) -> PyErr {
        decode_error(
            self.py,
            format!(
                "expansion limit exceeded (shared subtrees): more than {} values",
                self.max_values
            ),
            None,
        )
    }

    /// Lets the memo borrow its objects instead of owning them: only valid
    /// when every converted object stays alive (inside the result) until the
    /// decoder is dropped, i.e. when nothing converted is ever discarded
    /// while conversion goes on (untyped conversion, which stops at the
    /// first error). Saves a reference count update per container.
    pub(crate) fn borrow_memo(&mut self) {
        self.owned_memo = false;
    }

    /// Lets containers be read straight from the bytes given to
    /// [`new`](Self::new): only valid when every value converted is of
    /// that document, opened with `Document::open` or `open_trusted` (not
    /// lazily). Saves decoding each slot into a `Value` first.
    pub(crate) fn read_in_place(&mut self) {
        self.doc = self.buf;
    }

    #[inline]
    fn memo_insert(&mut self, off: usize, o: &Bound<'py, PyAny>) {
        self.adopt_scratch();
        let p = if self.owned_memo {
            o.clone().into_ptr()
        } else {
            o.as_ptr()
        };
        self.memo.insert(off, p);
    }

    /// Sizes the memo for converting the whole document (avoids rehashing).
    pub(crate) fn reserve_for_document(&mut self) {
        let n = (self.end - self.base) / 128;
        if n > 0 {
            self.adopt_scratch();
        }
        self.memo.reserve(n.min(1 << 16));
    }

    /// Charges `n` values to the expansion budget.
    #[inline]
    pub(crate) fn charge(&mut self, n: usize) -> PyResult<()> {
        match self.budget.checked_sub(n as u64) {
            Some(b) => {
                self.budget = b;
                Ok(())
            }
            None => Err(self.budget_error()),
        }
    }

    /// The document's bytes (what offsets in errors count from).
    pub(crate) fn doc_bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// Charges a payload of `len` bytes copied into a new object (a str
    /// or bytes made at every place it appears): a value per
    /// [`roving::BYTES_PER_VALUE`] bytes, as the Rust converters count.
    #[inline(always)]
    pub(crate) fn charge_payload(&mut self, len: usize) -> PyResult<()> {
        let n = len / roving::BYTES_PER_VALUE;
        if n == 0 {
            return Ok(());
        }
        self.charge(n)
    }

    #[cold]
    fn stack_error(&self) -> PyErr {
        decode_error(
            self.py,
            format!(
                "nesting depth limit exceeded: this thread's stack is exhausted after {} levels",
                self.depth
            ),
            None,
        )
    }

    /// True if this thread's stack is too low to go a level deeper (the
    /// thread's limit is looked up on first use: shallow documents, such
    /// as store records, never need it).
    #[inline]
    fn stack_exhausted(&mut self) -> bool {
        if self.stack_limit == 0 {
            self.stack_limit = crate::stack::limit();
        }
        crate::stack::sp() < self.stack_limit
    }

    #[inline]
    pub(crate) fn enter(&mut self) -> PyResult<()> {
        if self.depth >= self.max_depth {
            return Err(self.depth_error());
        }
        if self.depth >= STACK_CHECK_DEPTH && self.stack_exhausted() {
            return Err(self.stack_error());
        }
        self.depth += 1;
        Ok(())
    }

    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Converts one value.
    #[inline]
    pub(crate) fn value(&mut self, v: Value<'a>) -> PyResult<Bound<'py, PyAny>> {
        self.item(v)
    }

    /// Converts one value: the common scalars inline (this is the body of
    /// the container loops), the rest out of line.
    #[inline(always)]
    fn item(&mut self, v: Value<'a>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        // SAFETY: (all FFI calls below) the thread is attached (we hold
        // `py`); each constructor returns a new reference or NULL with an
        // exception set, which `from_owned_ptr_or_err` turns into an error.
        unsafe {
            let p = match v {
                Value::Str(s) => return self.str(s.as_bytes()),
                Value::Map(m) => return self.map(m),
                Value::Array(a) => return self.array(a),
                Value::Int(i) => ffi::PyLong_FromLongLong(i),
                Value::Float(f) => ffi::PyFloat_FromDouble(f),
                Value::Null => return Ok(py.None().into_bound(py)),
                Value::Bool(b) => {
                    return Ok(pyo3::types::PyBool::new(py, b).to_owned().into_any());
                }
                _ => return self.other(v),
            };
            Bound::from_owned_ptr_or_err(py, p)
        }
    }

    /// Converts the less common values.
    #[inline(never)]
    fn other(&mut self, v: Value<'a>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        match v {
            Value::UInt(u) => scalar(py, Value::UInt(u), &[]),
            Value::BigInt(b) => bigint(py, b),
            Value::Bytes(b) => {
                self.charge_payload(b.len())?;
                Ok(PyBytes::new(py, b).into_any())
            }
            Value::Timestamp(t) => timestamp(py, t),
            Value::Vector(vec) => self.vector(vec),
            Value::Ext(e) => {
                self.charge_payload(e.data.len())?;
                ext(py, e.type_id, e.data, self.buf)
            }
            Value::Str(s) => self.str(s.as_bytes()),
            Value::Map(m) => self.map(m),
            Value::Array(a) => self.array(a),
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => scalar(py, v, &[]),
        }
    }

    /// A Python `str` for string bytes borrowed from the document.
    #[inline(always)]
    pub(crate) fn str(&mut self, b: &[u8]) -> PyResult<Bound<'py, PyAny>> {
        let addr = b.as_ptr() as usize;
        // (An empty cache has a span of 0: no string passes.)
        if b.len().wrapping_sub(1) >= STR_CACHE_MAX_LEN
            || addr.wrapping_sub(self.base) >= self.cache_span
        {
            let at = addr.wrapping_sub(self.base);
            if at < self.base_len {
                // A string of the dictionary's base: the same str object
                // from document to document (none made, none freed).
                if let Some(kept) = self.base_shapes.as_deref_mut() {
                    return kept.str(self.py, at, b);
                }
            }
            // A new str at every place: its length counts against the
            // expansion budget (a long string shared by many places).
            self.charge_payload(b.len())?;
            return pytypes::make_str(self.py, b);
        }
        let h = ((addr as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize
            & (self.strs.len() - 1);
        let (a, p) = self.strs[h];
        if a == addr && !p.is_null() {
            // SAFETY: `p` is an owned reference held by the cache.
            return Ok(unsafe { Bound::from_borrowed_ptr(self.py, p) });
        }
        self.str_miss(b, h)
    }

    /// A new str for `b`, kept in cache entry `h`.
    #[inline(never)]
    fn str_miss(&mut self, b: &[u8], h: usize) -> PyResult<Bound<'py, PyAny>> {
        let s = pytypes::make_str(self.py, b)?;
        // SAFETY: the cache takes a new reference; the previous entry's is released.
        unsafe {
            ffi::Py_XDECREF(self.strs[h].1);
            self.strs[h] = (b.as_ptr() as usize, s.clone().into_ptr());
        }
        Ok(s)
    }

    /// Interned key strings of the shape of `m` (cached per shape): the
    /// index of the first in `key_store`, for a caller that reads `n` keys
    /// with [`key`](Self::key). A `DecodeError` if the shape (as first
    /// seen) has fewer than `n` keys, which only bytes that are not a valid
    /// document give: opened trusted, or changed after validation.
    #[inline]
    pub(crate) fn keys_start(&mut self, m: &Map<'a>, n: usize) -> PyResult<usize> {
        let i = self.shape_index(m.shape_offset().unwrap_or(usize::MAX), m)?;
        self.check_keys(i, n, m.offset())?;
        Ok(self.shape_list[i].start)
    }

    /// Checks that shape `si` has at least `n` keys (see
    /// [`keys_start`](Self::keys_start)).
    #[inline(always)]
    fn check_keys(&self, si: usize, n: usize, at: Option<usize>) -> PyResult<()> {
        if n > self.shape_list[si].len {
            return Err(self.shape_mismatch(n, at));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn shape_mismatch(&self, n: usize, at: Option<usize>) -> PyErr {
        decode_error(
            self.py,
            format!(
                "malformed document: a map of {n} values whose shape has fewer keys \
                 (bytes opened trusted, or changed after validation)"
            ),
            at.map(|a| a as u64),
        )
    }

    /// The index in `shape_list` of the shape at offset `shape` (that of
    /// `m`), its key strings made on first sight.
    #[inline(always)]
    fn shape_index(&mut self, shape: usize, m: &Map<'a>) -> PyResult<usize> {
        let [a, b] = self.recent_shapes;
        if a.0 == shape {
            return Ok(a.1);
        }
        let i = if b.0 == shape {
            b.1
        } else {
            self.shape_lookup(shape, m)?
        };
        self.recent_shapes = [(shape, i), a];
        Ok(i)
    }

    /// [`shape_index`](Self::shape_index) through the table of shapes.
    #[inline(never)]
    fn shape_lookup(&mut self, shape: usize, m: &Map<'a>) -> PyResult<usize> {
        if let Some(&i) = self.shapes.get(&shape) {
            return Ok(i);
        }
        self.adopt_scratch();
        let start = self.key_store.0.len();
        let in_base = shape < self.base_len;
        if in_base {
            if let Some(kept) = self.base_shapes.as_deref() {
                if let Some(template) = kept.get(self.py, shape, &mut self.key_store.0) {
                    return Ok(self.add_shape(shape, start, 1, template));
                }
            }
        }
        let intern = m.len() <= INTERN_KEYS_MAX;
        self.key_store.0.reserve(m.len());
        if intern {
            interned_keys(self.py, m, &mut self.key_store.0)?;
        } else if let Some(keys) = m.packed_keys() {
            // A map keyed by ids: block by block (a malformed key, only in
            // a document not validated, reads as "", as `keys` gives it).
            let (py, store) = (self.py, &mut self.key_store.0);
            keys.try_each(|k| -> PyResult<()> {
                store.push(pytypes::make_str(py, k.unwrap_or("").as_bytes())?.into_ptr());
                Ok(())
            })?;
        } else {
            for k in m.keys() {
                let p = pytypes::make_str(self.py, k.as_bytes())?.into_ptr();
                self.key_store.0.push(p);
            }
        }
        let mut template = std::ptr::null_mut();
        if in_base && self.base_shapes.is_some() {
            // Kept for the next documents, which then copy its template.
            let n = self.key_store.0.len() - start;
            if n >= template_min_keys() {
                template = self.new_template(start, n)?;
            }
            if let Some(kept) = self.base_shapes.as_deref_mut() {
                kept.insert(self.py, shape, &self.key_store.0[start..], template);
            }
        }
        Ok(self.add_shape(shape, start, 0, template))
    }

    /// Adds the shape at offset `shape`, whose keys are those of the key
    /// store from `start` on, with `template` (owned, or NULL) made after
    /// `uses` dicts; returns its index in `shape_list`.
    fn add_shape(
        &mut self,
        shape: usize,
        start: usize,
        uses: usize,
        template: *mut ffi::PyObject,
    ) -> usize {
        let i = self.shape_list.len();
        self.shape_list.push(ShapeKeys {
            start,
            len: self.key_store.0.len() - start,
            uses,
            template,
        });
        self.shapes.insert(shape, i);
        i
    }

    /// A new dict of the `n` keys of the key store from `start` on, each
    /// with the value None (a new reference).
    fn new_template(&self, start: usize, n: usize) -> PyResult<*mut ffi::PyObject> {
        // SAFETY: PyDict_New returns a new reference or NULL; keys are
        // live strs owned by the key store.
        unsafe {
            let tpl = ffi::PyDict_New();
            if tpl.is_null() {
                return Err(PyErr::fetch(self.py));
            }
            for i in 0..n {
                if ffi::PyDict_SetItem(tpl, self.key_store.0[start + i], ffi::Py_None()) < 0 {
                    ffi::Py_DECREF(tpl);
                    return Err(PyErr::fetch(self.py));
                }
            }
            Ok(tpl)
        }
    }

    /// Key string `i` of a shape whose keys start at `start` (borrowed).
    #[inline]
    pub(crate) fn key(&self, start: usize, i: usize) -> *mut ffi::PyObject {
        self.key_store.0[start + i]
    }

    /// Converts an array to a list.
    #[inline(never)]
    pub(crate) fn array(&mut self, a: Array<'a>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let off = a.offset();
        if let Some(o) = off {
            if let Some(p) = self.memo.get(o) {
                // SAFETY: memo entries are owned by the memo, or (borrow_memo) alive
                // inside the result being built.
                return Ok(unsafe { Bound::from_borrowed_ptr(py, p) });
            }
        }
        let raw = match off {
            Some(o) if !self.doc.is_empty() => array_record_parts(self.doc, o),
            _ => None,
        };
        if raw.is_none() {
            if let Some(numbers) = a.numbers() {
                return self.numbers(off, numbers);
            }
        }
        let mut items = a.iter();
        let n = match raw {
            Some(p) => p.len,
            None => items.len(),
        };
        self.charge(n)?;
        self.enter()?;
        // SAFETY: PyList_New returns a new list of `n` NULL items or NULL;
        // each item is set exactly once with a new (stolen) reference. A
        // partially filled list is valid to free (NULL items are skipped).
        let list =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))? };
        if let Some(o) = off {
            self.memo_insert(o, &list);
        }
        if raw.is_none() && a.is_string_array() {
            self.str_array_items(&list, a, n)?;
        } else if let Some(ArrayRecordParts {
            slots, width: w, ..
        }) = raw
        {
            let (doc, base) = (self.doc, o_or_max(off));
            for i in 0..n {
                let item = match self.slot(doc, slots + i * w, w, base) {
                    Some(r) => r?,
                    None => self.item(a.get(i).unwrap_or(Value::Null))?,
                };
                // SAFETY: i < n; the list steals the reference.
                unsafe {
                    ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr())
                };
            }
        } else {
            for i in 0..n {
                let v = items.next().unwrap_or(Value::Null);
                let item = self.item(v)?;
                // SAFETY: i < n; the list steals the reference.
                unsafe {
                    ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr())
                };
            }
        }
        self.leave();
        Ok(list)
    }

    /// Fills `list` (of `n` NULL items) with the elements of a string array
    /// record (format version 2): each a new `str` (its strings are all
    /// distinct and in no other place, so the cache by position of
    /// [`str`](Self::str) would only miss), its length charged to the budget.
    #[inline(never)]
    fn str_array_items(
        &mut self,
        list: &Bound<'py, PyAny>,
        a: Array<'a>,
        n: usize,
    ) -> PyResult<()> {
        // (Read here, not in `array`: its frame stays small for deep nesting.)
        let Some(strings) = a.strings() else {
            return Ok(());
        };
        let mut i = 0;
        strings.try_each(|s| -> PyResult<()> {
            if i >= n {
                return Ok(());
            }
            let item = match s {
                Some(s) => {
                    self.charge_payload(s.len())?;
                    pytypes::make_str(self.py, s.as_bytes())?
                }
                // Malformed (a document not validated): as `get` reads it.
                None => self.py.None().into_bound(self.py),
            };
            // SAFETY: i < n; the list steals the reference.
            unsafe { ffi::PyList_SET_ITEM(list.as_ptr(), i as ffi::Py_ssize_t, item.into_ptr()) };
            i += 1;
            Ok(())
        })?;
        // (Fewer strings than `n`: only bytes that are not a valid document.)
        for j in i..n {
            // SAFETY: j < n; the list steals the reference.
            unsafe {
                ffi::PyList_SET_ITEM(
                    list.as_ptr(),
                    j as ffi::Py_ssize_t,
                    self.py.None().into_ptr(),
                )
            };
        }
        Ok(())
    }

    /// A new dict for a map of shape `si` (an index in `shape_list`) of `n`
    /// keys, and whether it is a copy of the shape's template: then it has
    /// the keys in order (values None), to be filled in place
    /// ([`dictiter::fill_entry`]) or with `PyDict_SetItem`. Copying a
    /// template dict is faster than inserting keys one by one (no resizing,
    /// no key hashing). Otherwise it is empty.
    #[inline]
    fn presized_dict(&mut self, si: usize, n: usize) -> PyResult<(*mut ffi::PyObject, bool)> {
        let py = self.py;
        let sk = &mut self.shape_list[si];
        sk.uses += 1;
        let (t, uses, start) = (sk.template, sk.uses, sk.start);
        // SAFETY: dict constructors return new references or NULL; keys are
        // live strs owned by the key store.
        unsafe {
            if t.is_null() {
                // A shape's first dict (maybe its only one), or a small one:
                // no template.
                if n < template_min_keys() || uses < 2 {
                    let d = new_dict(n);
                    if d.is_null() {
                        return Err(PyErr::fetch(py));
                    }
                    return Ok((d, false));
                }
                let tpl = self.new_template(start, n)?;
                self.shape_list[si].template = tpl;
                let d = ffi::PyDict_Copy(tpl);
                return if d.is_null() {
                    Err(PyErr::fetch(py))
                } else {
                    Ok((d, true))
                };
            }
            let d = ffi::PyDict_Copy(t);
            if d.is_null() {
                return Err(PyErr::fetch(py));
            }
            Ok((d, true))
        }
    }

    /// Converts a map to a dict.
    #[inline(never)]
    pub(crate) fn map(&mut self, m: Map<'a>) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let off = m.offset();
        if let Some(o) = off {
            if let Some(p) = self.memo.get(o) {
                // SAFETY: memo entries are owned by the memo, or (borrow_memo) alive
                // inside the result being built.
                return Ok(unsafe { Bound::from_borrowed_ptr(py, p) });
            }
        }
        let raw = match off {
            Some(o) if !self.doc.is_empty() => map_record_parts(self.doc, o),
            _ => None,
        };
        let (shape, n, slots) = match raw {
            Some(p) => (p.shape, p.len, Some((o_or_max(off), p.slots, p.width))),
            None => (m.shape_offset().unwrap_or(usize::MAX), m.len(), None),
        };
        self.charge(n)?;
        self.enter()?;
        let si = self.shape_index(shape, &m)?;
        if let Err(e) = self.check_keys(si, n, off) {
            self.leave();
            return Err(e);
        }
        let start = self.shape_list[si].start;
        let (d, copied) = self.presized_dict(si, n)?;
        // SAFETY: presized_dict returns a new reference.
        let dict = unsafe { Bound::from_owned_ptr(py, d) };
        if let Some(o) = off {
            self.memo_insert(o, &dict);
        }
        if let Some((base, vals, w)) = slots {
            let doc = self.doc;
            for i in 0..n {
                let item = match self.slot(doc, vals + i * w, w, base) {
                    Some(r) => r?,
                    None => self.item(m.value_at(i).unwrap_or(Value::Null))?,
                };
                self.put(&dict, copied, n, i, start + i, item)?;
            }
        } else {
            let mut values = m.values();
            for i in 0..n {
                let v = values.next().unwrap_or(Value::Null);
                let item = self.item(v)?;
                self.put(&dict, copied, n, i, start + i, item)?;
            }
        }
        self.leave();
        Ok(dict)
    }

    /// `dict[key k] = item` for the `i`th of the `n` keys of its map, `k`
    /// an index in the key store. A template's copy (`copied`) is filled in
    /// place while its table is still the copy's (the table is looked up
    /// again each time: Python code run by an item's conversion, a
    /// finalizer for one, could reach the dict through the garbage
    /// collector and change it).
    #[inline(always)]
    fn put(
        &self,
        dict: &Bound<'py, PyAny>,
        copied: bool,
        n: usize,
        i: usize,
        k: usize,
        item: Bound<'py, PyAny>,
    ) -> PyResult<()> {
        let k = self.key_store.0[k];
        let d = dict.as_ptr();
        let entries = if copied {
            // SAFETY: `dict` is a live exact dict.
            unsafe { dictiter::unicode_entries(d, n) }
        } else {
            None
        };
        let item = match entries {
            // SAFETY: `entries` are the dict's current ones (taken just
            // now, and no Python code runs before the write), and `i < n`.
            Some(e) if i < n => match unsafe { dictiter::fill_entry(d, e, i, k, item) } {
                Ok(()) => return Ok(()),
                Err(item) => item,
            },
            _ => item,
        };
        // SAFETY: `k` is a str owned by the key store, `item` a live
        // object; PyDict_SetItem takes its own references.
        if unsafe { ffi::PyDict_SetItem(dict.as_ptr(), k, item.as_ptr()) } < 0 {
            return Err(PyErr::fetch(self.py));
        }
        Ok(())
    }

    /// Converts the value of the slot at `at` (`w` bytes) of the container
    /// at `base` in `doc` (the document's bytes) when it is one of the
    /// common kinds (a small integer, null, a boolean, a short string, an
    /// integer or float record), reading the bytes directly; `None` for
    /// the others (containers included), which the caller converts through
    /// the reader. Same values as [`item`](Self::item) on the reader's
    /// value of that slot; every read is bounds-checked, so bytes that are
    /// not a valid document give wrong values at worst.
    #[inline(always)]
    fn slot(
        &mut self,
        doc: &'a [u8],
        at: usize,
        w: usize,
        base: usize,
    ) -> Option<PyResult<Bound<'py, PyAny>>> {
        let py = self.py;
        // SAFETY: (both constructors) the thread is attached (we hold `py`);
        // each returns a new reference or NULL with an exception set, which
        // `from_owned_ptr_or_err` turns into an error.
        unsafe {
            let p = match scalar_slot(doc, at, w, base)? {
                ScalarSlot::Int(v) => ffi::PyLong_FromLongLong(v),
                ScalarSlot::Float(f) => ffi::PyFloat_FromDouble(f),
                ScalarSlot::Null => return Some(Ok(py.None().into_bound(py))),
                ScalarSlot::Bool(b) => return Some(Ok(PyBool::new(py, b).to_owned().into_any())),
                ScalarSlot::ShortStr(b) => return Some(self.str(b)),
            };
            Some(Bound::from_owned_ptr_or_err(py, p))
        }
    }

    /// Converts a number array record (`off` its offset) to a list: one
    /// tight loop per element type, each element's bytes read and made a
    /// Python int or float directly.
    #[inline(never)]
    pub(crate) fn numbers(
        &mut self,
        off: Option<usize>,
        numbers: Numbers<'a>,
    ) -> PyResult<Bound<'py, PyAny>> {
        use roving::layout::{ElemType as E, NumElem};
        let py = self.py;
        let n = numbers.len();
        self.charge(n)?;
        // SAFETY: PyList_New returns a new list of `n` NULL items or NULL.
        let list =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n as ffi::Py_ssize_t))? };
        if let Some(o) = off {
            self.memo_insert(o, &list);
        }
        let raw = numbers.raw();
        // The constructors below return a new reference or NULL with an
        // exception set (which `fill` reports).
        // SAFETY: the thread is attached (we hold `py`).
        let int = |v: i64| unsafe { ffi::PyLong_FromLongLong(v) };
        // SAFETY: as above.
        let float = |v: f64| unsafe { ffi::PyFloat_FromDouble(v) };
        let l = list.as_ptr();
        match numbers.elem() {
            NumElem::Binary(E::I8) => fill::<1>(py, l, raw, |b| int(b[0] as i8 as i64)),
            NumElem::Binary(E::U8) => fill::<1>(py, l, raw, |b| int(b[0] as i64)),
            NumElem::Binary(E::I16) => fill::<2>(py, l, raw, |b| int(i16::from_le_bytes(b) as i64)),
            NumElem::Binary(E::U16) => fill::<2>(py, l, raw, |b| int(u16::from_le_bytes(b) as i64)),
            NumElem::Binary(E::I32) => fill::<4>(py, l, raw, |b| int(i32::from_le_bytes(b) as i64)),
            NumElem::Binary(E::U32) => fill::<4>(py, l, raw, |b| int(u32::from_le_bytes(b) as i64)),
            NumElem::Binary(E::I64) => fill::<8>(py, l, raw, |b| int(i64::from_le_bytes(b))),
            NumElem::Binary(E::U64) => fill::<8>(py, l, raw, |b| {
                // SAFETY: as above.
                unsafe { ffi::PyLong_FromUnsignedLongLong(u64::from_le_bytes(b)) }
            }),
            NumElem::Binary(E::F32) => fill::<4>(py, l, raw, |b| {
                float(f32_to_f64_exact(f32::from_le_bytes(b)))
            }),
            NumElem::Binary(E::F64) => fill::<8>(py, l, raw, |b| float(f64::from_le_bytes(b))),
            NumElem::Decimal(e) => {
                fill::<4>(py, l, raw, |b| float(f_dec_value(i32::from_le_bytes(b), e)))
            }
        }?;
        Ok(list)
    }

    fn vector(&mut self, v: roving::Vector<'a>) -> PyResult<Bound<'py, PyAny>> {
        let off = v.offset();
        if let Some(p) = self.memo.get(off) {
            // SAFETY: memo entries are owned by the memo, or (borrow_memo) alive
            // inside the result being built.
            return Ok(unsafe { Bound::from_borrowed_ptr(self.py, p) });
        }
        self.charge(1)?;
        let o = pytypes::vector_value_to_py(self.py, v)?;
        self.memo_insert(off, &o);
        Ok(o)
    }
}

/// A number array's elements as a new numpy array (an `array.array`
/// without numpy) of the dtype numpy gives the same numbers as a list:
/// `float64` for floats, `int64` for integers (`uint64` if one is above
/// `2^63 - 1`), whatever element type the record stores them in.
pub(crate) fn numbers_array<'py>(
    py: Python<'py>,
    numbers: Numbers<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    use roving::layout::ElemType;
    let mut out = Vec::with_capacity(numbers.len() * 8);
    let mut elem = ElemType::I64;
    for i in 0..numbers.len() {
        match numbers.get(i) {
            Some(Value::Float(f)) => {
                elem = ElemType::F64;
                out.extend_from_slice(&f.to_le_bytes());
            }
            Some(Value::Int(v)) => out.extend_from_slice(&v.to_le_bytes()),
            Some(Value::UInt(v)) => {
                elem = ElemType::U64;
                out.extend_from_slice(&v.to_le_bytes());
            }
            _ => out.extend_from_slice(&[0; 8]),
        }
    }
    pytypes::vector_to_py(py, elem, &out)
}

/// Sets the items of `list` (a new list of `raw.len() / N` NULL items) to
/// `make` of each `N` bytes of `raw`, a new reference or NULL with an
/// exception set (then the error; the list, partly filled, stays valid).
#[inline(always)]
fn fill<const N: usize>(
    py: Python<'_>,
    list: *mut ffi::PyObject,
    raw: &[u8],
    make: impl Fn([u8; N]) -> *mut ffi::PyObject,
) -> PyResult<()> {
    for (i, c) in raw.chunks_exact(N).enumerate() {
        let Ok(b) = <[u8; N]>::try_from(c) else {
            continue; // unreachable: chunks of N bytes
        };
        let item = make(b);
        if item.is_null() {
            return Err(PyErr::fetch(py));
        }
        // SAFETY: `list` is a list of raw.len() / N items, i is below that;
        // it steals the new reference.
        unsafe { ffi::PyList_SET_ITEM(list, i as ffi::Py_ssize_t, item) };
    }
    Ok(())
}

/// `off`, or `usize::MAX` for `None`.
#[inline(always)]
fn o_or_max(off: Option<usize>) -> usize {
    off.unwrap_or(usize::MAX)
}

/// A Python value of a scalar (not a container or vector), without any
/// decoder state. `doc` is the document `v` was read from, if known (else
/// empty): errors in extension payloads give their offset there.
pub(crate) fn scalar<'py>(
    py: Python<'py>,
    v: Value<'_>,
    doc: &[u8],
) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => Ok(pyo3::types::PyBool::new(py, b).to_owned().into_any()),
        Value::Int(i) => Ok(i.into_pyobject(py)?.into_any()),
        Value::UInt(u) => Ok(u.into_pyobject(py)?.into_any()),
        Value::Float(f) => Ok(pyo3::types::PyFloat::new(py, f).into_any()),
        Value::Str(s) => pytypes::make_str(py, s.as_bytes()),
        Value::BigInt(b) => bigint(py, b),
        Value::Bytes(b) => Ok(PyBytes::new(py, b).into_any()),
        Value::Timestamp(t) => timestamp(py, t),
        Value::Ext(e) => ext(py, e.type_id, e.data, doc),
        Value::Vector(vec) => pytypes::vector_value_to_py(py, vec),
        Value::Array(_) | Value::Map(_) => Decoder::new(py, &[]).value(v),
    }
}

/// An int of any size.
pub(crate) fn bigint<'py>(
    py: Python<'py>,
    b: roving::read::BigInt<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let n = b.to_num();
    n.into_pyobject(py).map(|o| o.into_any())
}

/// A timestamp as a datetime: aware (fixed offset) if it has an offset,
/// naive otherwise. Nanoseconds are truncated to microseconds.
pub(crate) fn timestamp<'py>(py: Python<'py>, t: roving::Timestamp) -> PyResult<Bound<'py, PyAny>> {
    // Local seconds since the epoch, in i64 (no 128-bit division): values
    // far outside datetime's range (years 1 to 9999) map to year 0.
    const RANGE: i64 = 1 << 40;
    let local = t.seconds.checked_add(t.offset.unwrap_or(0) as i64);
    let (y, m, d, sod) = match local {
        Some(l) if (-RANGE..=RANGE).contains(&l) => {
            let (y, m, d) = pytypes::civil_from_days_near(l.div_euclid(86_400));
            (y, m, d, l.rem_euclid(86_400))
        }
        _ => (0, 1, 1, 0),
    };
    if !(1..=9999).contains(&y) {
        return Err(decode_error(
            py,
            format!(
                "timestamp {} is outside the range of datetime",
                t.to_rfc3339()
            ),
            None,
        ));
    }
    let api = pytypes::datetime_api(py)?;
    // A fixed offset other than 0 comes from the cache (kept alive here).
    let fixed = match t.offset {
        Some(o) if o != 0 => Some(pytypes::timezone(py, o)?),
        _ => None,
    };
    // SAFETY: `api` is CPython's datetime C API (imported, never freed);
    // the tzinfo is None, the UTC singleton the API holds, or a live
    // timezone held by `fixed`; the date and time fields are in range
    // (year checked above, the rest by construction), and the call
    // returns a new reference or NULL with an exception set.
    unsafe {
        let tz = match (&fixed, t.offset) {
            (Some(f), _) => f.as_ptr(),
            (None, Some(_)) => (*api).TimeZone_UTC,
            (None, None) => ffi::Py_None(),
        };
        let p = ((*api).DateTime_FromDateAndTime)(
            y as std::os::raw::c_int,
            m as std::os::raw::c_int,
            d as std::os::raw::c_int,
            (sod / 3600) as std::os::raw::c_int,
            ((sod / 60) % 60) as std::os::raw::c_int,
            (sod % 60) as std::os::raw::c_int,
            (t.nanos / 1000) as std::os::raw::c_int,
            tz,
            (*api).DateTimeType,
        );
        Bound::from_owned_ptr_or_err(py, p)
    }
}

/// An extension value: `date`, `UUID`, `Decimal`, `time`, `timedelta`,
/// or `roving.Ext`. `doc` is the document `data` was read from (if known,
/// else empty): a malformed payload's `DecodeError` gives its offset there.
pub(crate) fn ext<'py>(
    py: Python<'py>,
    type_id: u64,
    data: &[u8],
    doc: &[u8],
) -> PyResult<Bound<'py, PyAny>> {
    let at = || {
        let off = (data.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
        (off < doc.len()).then_some(off as u64)
    };
    let bad = |why: &str| decode_error(py, why.into(), at());
    match type_id {
        EXT_DATE => {
            let (y, m, d) = pytypes::date_payload(data).map_err(bad)?;
            Ok(PyDate::new(py, y, m, d)?.into_any())
        }
        EXT_UUID => {
            if data.len() != 16 {
                return Err(bad("bad UUID payload (expected 16 bytes)"));
            }
            let t = pytypes::types(py)?;
            let kw = pyo3::types::PyDict::new(py);
            kw.set_item(pyo3::intern!(py, "bytes"), PyBytes::new(py, data))?;
            t.uuid.bind(py).call((), Some(&kw))
        }
        EXT_DECIMAL => {
            let Some(s) = pytypes::decimal_text(data) else {
                return Err(bad("bad Decimal payload"));
            };
            let t = pytypes::types(py)?;
            t.decimal
                .bind(py)
                .call1((s,))
                .map_err(|_| bad(&format!("bad Decimal payload {s:?}")))
        }
        EXT_TIME => {
            let t = times::time_payload(data).map_err(bad)?;
            let tz = match t.offset {
                None => None,
                Some(o) => Some(fixed_offset(py, o)?),
            };
            let (h, m, s, us) = t.fields();
            Ok(PyTime::new_with_fold(py, h, m, s, us, tz.as_ref(), t.fold)?.into_any())
        }
        EXT_TIMEDELTA => {
            let (days, secs, us) = times::timedelta_payload(data).map_err(bad)?.fields();
            Ok(PyDelta::new(py, days, secs, us, false)?.into_any())
        }
        _ => Ok(Bound::new(
            py,
            crate::Ext::new(type_id, PyBytes::new(py, data).unbind()),
        )?
        .into_any()),
    }
}

/// A `datetime.timezone` of a UTC offset in microseconds (below a day):
/// the cached one of a whole number of seconds, else a new one.
fn fixed_offset(py: Python<'_>, us: i64) -> PyResult<Bound<'_, PyTzInfo>> {
    if us % 1_000_000 == 0 {
        return pytypes::timezone(py, (us / 1_000_000) as i32);
    }
    let s = us.div_euclid(1_000_000);
    let d = PyDelta::new(
        py,
        s.div_euclid(86_400) as i32,
        s.rem_euclid(86_400) as i32,
        us.rem_euclid(1_000_000) as i32,
        false,
    )?;
    PyTzInfo::fixed_offset(py, d)
}

/// Validates `data` (releasing the GIL for large immutable buffers when
/// `detach` is true) and converts the whole document.
pub(crate) fn loads_slice<'py>(
    py: Python<'py>,
    data: &[u8],
    detach: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = open_validated(py, data, detach)?;
    loads_opened(py, &doc, None)
}

/// [`loads_slice`] of a document already validated (or opened trusted).
/// `kept` is, for a document bound to a dictionary, the shapes of its base
/// kept from document to document and the base's length.
pub(crate) fn loads_opened<'py, 'a>(
    py: Python<'py>,
    doc: &roving::Document<'a>,
    kept: Option<(&'a mut BaseShapes, usize)>,
) -> PyResult<Bound<'py, PyAny>> {
    let _gc = GcPause::new();
    let mut d = Decoder::new(py, doc.as_bytes());
    if let Some((shapes, base_len)) = kept {
        d.keep_base_shapes(shapes, base_len);
    }
    d.reserve_for_document();
    d.borrow_memo();
    d.read_in_place();
    d.value(doc.root())
}

/// Validates and opens a document.
pub(crate) fn open_validated<'a>(
    py: Python<'_>,
    data: &'a [u8],
    detach: bool,
) -> PyResult<roving::Document<'a>> {
    let r = if detach && data.len() >= 1 << 16 {
        py.detach(|| roving::Document::open(data))
    } else {
        roving::Document::open(data)
    };
    r.map_err(|e| from_core(py, &e))
}

extern "C" {
    /// CPython's `_PyDict_NewPresized` (exported by 3.11, the oldest Python
    /// this package supports, and kept in 3.13, where its removal was
    /// reverted): a new empty dict with room for `minused` items without
    /// a resize.
    fn _PyDict_NewPresized(minused: ffi::Py_ssize_t) -> *mut ffi::PyObject;
}

/// A new empty dict for `n` items: presized beyond the few a new dict
/// holds, so that filling it never resizes it (a dict of 20,000 items
/// grows 12 times otherwise, each time rehashing every item so far).
///
/// # Safety
/// The GIL is held. Returns a new reference, or NULL with an exception set.
#[inline]
unsafe fn new_dict(n: usize) -> *mut ffi::PyObject {
    // SAFETY: both constructors return a new reference or NULL (GIL held,
    // the caller's contract).
    unsafe {
        if n <= 5 {
            ffi::PyDict_New()
        } else {
            _PyDict_NewPresized(n as ffi::Py_ssize_t)
        }
    }
}
