//! Writing documents: the [`Encoder`] builder.
//!
//! Encoding is one pass with no intermediate tree: every value is written
//! as soon as it is complete (children before parents), and an open
//! container only keeps the slots of its children on a stack. Strings are
//! stored once (all of them, keys and values), maps with the same keys in
//! the same order share one shape, and each container's slot width is the
//! narrowest that holds all its slots.

mod copy;
mod strings;

use hashbrown::HashMap;

use crate::error::{Error, ErrorKind, Result};
use crate::layout::*;
use crate::read::VectorElement;
use crate::timestamp::Timestamp;
use strings::StringTable;

/// A value that is complete but not yet placed in its container's slot,
/// packed as an 8-byte slot would hold it (low two bits: the slot kind):
/// an inline integer (`v << 2 | SLOT_INT`, `v` in the 8-byte inline range)
/// and a special constant are their slot bits already; a record is its
/// position `<< 2` (kind [`SLOT_REL`]), made relative or absolute when the
/// container is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending(u64);

/// [`Pending`] unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PendingKind {
    /// Small integer, inline if the container's width allows.
    Int(i64),
    /// Special constant.
    Special,
    /// Record at this position.
    Ref(usize),
}

#[allow(non_snake_case)]
impl Pending {
    /// An integer in the 8-byte inline range.
    #[inline(always)]
    fn Int(v: i64) -> Pending {
        Pending(((v as u64) << 2) | SLOT_INT)
    }

    #[inline(always)]
    fn Special(s: u64) -> Pending {
        Pending((s << 2) | SLOT_SPECIAL)
    }

    #[inline(always)]
    fn Ref(pos: usize) -> Pending {
        Pending((pos as u64) << 2)
    }

    #[inline(always)]
    fn kind(self) -> PendingKind {
        match self.0 & 3 {
            SLOT_INT => PendingKind::Int((self.0 as i64) >> 2),
            SLOT_REL => PendingKind::Ref((self.0 >> 2) as usize),
            _ => PendingKind::Special,
        }
    }
}

/// A handle to a value already written, for writing it again as a shared
/// reference (the document is a DAG: a value may have several parents).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pending: Pending,
    generation: u64,
}

/// The kind of container [`Encoder::open`] starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameKind {
    Array,
    Map,
}

/// [`Frame::state`] of an array.
const ARRAY: u8 = 0;
/// [`Frame::state`] of a map whose next item is a value.
const MAP_VALUE: u8 = 1;
/// [`Frame::state`] of a map whose next item is a key (at first and after
/// each value).
const MAP_KEY: u8 = 2;
/// [`Frame::state`] outside every container.
const ROOT: u8 = 3;

#[derive(Clone, Copy, Debug)]
struct Frame {
    /// What the container is and expects next: [`ARRAY`], [`MAP_VALUE`],
    /// [`MAP_KEY`] or [`ROOT`]. Placing a value in an array or a map
    /// expecting one doubles it (`ARRAY` stays, `MAP_VALUE` becomes
    /// `MAP_KEY`), so that one comparison checks it.
    state: u8,
    slots_start: usize,
    keys_start: usize,
    /// Running hash of the keys pushed to `Encoder::keys` so far.
    shape_hash: u64,
    /// The shape this map is predicted to have (an index into
    /// `Encoder::shapes`: the last shape ended at the same depth), or
    /// [`NO_GUESS`]. While the keys written match the guess's keys in
    /// order, they are only counted (`matched`), not looked up or pushed.
    guess: u32,
    /// Keys of the guess matched so far.
    matched: u32,
    /// The guess's keys are `Encoder::shape_keys[guess_keys..][..guess_len]`
    /// ([`NO_KEYS`] without a guess). The entry after them is a
    /// [`KEYS_END`], which matches no key: the next key of the guess is
    /// `shape_keys[guess_keys + matched]` if it matches, with no need to
    /// check `matched < guess_len` first.
    guess_keys: usize,
    guess_len: u32,
}

/// `Frame::guess` of a frame without a (still valid) prediction.
const NO_GUESS: u32 = u32::MAX;

/// `Frame::guess_keys` of a frame without a prediction (out of bounds,
/// also when `matched`, then 0, is added with wrapping).
const NO_KEYS: usize = usize::MAX;

/// The entry of `Encoder::shape_keys` after each shape's keys: its length
/// and address match no key (and its record no key's record).
const KEYS_END: KeyRef = KeyRef {
    record: usize::MAX - 1,
    data: 0,
    len: usize::MAX,
    addr: 0,
};

/// The frame outside every container: no key expected, no prediction.
const ROOT_FRAME: Frame = Frame {
    state: ROOT,
    slots_start: 0,
    keys_start: 0,
    shape_hash: 0,
    guess: NO_GUESS,
    matched: 0,
    guess_keys: NO_KEYS,
    guess_len: 0,
};

/// Key position used for the empty-string key (which has no record).
const EMPTY_KEY: usize = usize::MAX;

/// Entries of the encoder's key cache (a power of two).
const KEY_CACHE: usize = 64;

#[derive(Clone, Copy, Debug, Default)]
struct KeyCacheEntry {
    addr: usize,
    len: usize,
    record: usize,
    data: usize,
    /// The document (encoder generation) the entry belongs to: entries of
    /// earlier documents are stale, so a reset need not clear the cache.
    generation: u64,
}

/// A key written to a document, for writing it again in the same document
/// with [`Encoder::key_id`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyId {
    pos: usize,
    generation: u64,
}

/// A key of a shape: its string record and where its bytes are.
#[derive(Clone, Copy, Debug)]
struct KeyRef {
    /// Position of the string record ([`EMPTY_KEY`] for `""`).
    record: usize,
    /// Position of the key's bytes (0 for `""`).
    data: usize,
    len: usize,
    /// Address of a `&'static str` with these bytes (0: none known), set
    /// and read only by [`Encoder::key_static`]: a static string never
    /// changes, so the same address and length are the same bytes.
    addr: usize,
}

/// A shape written to the document.
#[derive(Clone, Copy, Debug)]
struct ShapeInfo {
    /// Its keys are `Encoder::shape_keys[keys..keys + len]`.
    keys: usize,
    len: usize,
    /// Position of the shape record.
    pos: usize,
    /// A map's relative shape reference at least this large is longer
    /// than the absolute one (see [`shape_ref`]).
    abs_from: u64,
    /// Slot width of the last map of this shape (0: none yet), the guess
    /// for the next one (see [`Encoder::write_record_as`]).
    width: usize,
}

/// One step of the running hash of a map's key records.
#[inline]
fn shape_hash_step(h: u64, key: usize) -> u64 {
    (h ^ key as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(26)
}

/// A number no other document of this process has: the generation of a
/// new encoder's document, and of each document after a reset. Marks and
/// key ids carry it, so that one from another document (of this encoder
/// or of any other) is refused rather than read as a position in this one.
///
/// Each thread draws its numbers from a block of 2^32 of its own, taken
/// from a process-wide counter when it needs one, so that the common case
/// is a thread-local increment (no shared cache line between threads
/// encoding in parallel).
fn next_generation() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    /// The next unused block (block `b` is `b << 32 ..= b << 32 | (2^32 - 1)`).
    static BLOCKS: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        /// This thread's next number (0: take a new block).
        static NEXT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }
    let new_block = || (BLOCKS.fetch_add(1, Ordering::Relaxed) << 32) | 1;
    NEXT.try_with(|next| {
        let mut g = next.get();
        if g & 0xFFFF_FFFF == 0 {
            // No block yet, or this one is used up.
            g = new_block();
        }
        next.set(g + 1);
        g
    })
    // (During thread teardown: a fresh block, used for one number.)
    .unwrap_or_else(|_| new_block())
}

/// Builds one document, value by value.
///
/// A method that fails (API misuse, a depth limit, a serde error part way
/// through a value) leaves the document as it was when it failed, with
/// the containers then open still open: call [`Encoder::reset`] before
/// building another document with the same encoder ([`to_vec`] and
/// [`json::from_json`] do).
///
/// [`to_vec`]: crate::to_vec
/// [`json::from_json`]: crate::json::from_json
///
/// ```
/// use roving::{Document, Encoder};
/// let mut e = Encoder::new();
/// e.begin_map()?;
/// e.key("name")?;
/// e.str("Ada")?;
/// e.key("langs")?;
/// e.begin_array()?;
/// e.str("en")?;
/// e.str("fr")?;
/// e.end_array()?;
/// e.end_map()?;
/// let bytes = e.finish()?;
/// let doc = Document::open(&bytes)?;
/// assert_eq!(doc.get_path("langs[1]")?.unwrap().as_str(), Some("fr"));
/// # Ok::<(), roving::Error>(())
/// ```
pub struct Encoder {
    out: Vec<u8>,
    slots: Vec<Pending>,
    keys: Vec<usize>,
    /// The innermost open container ([`ROOT_FRAME`] when none is open),
    /// kept out of `frames` so that placing a value reaches it directly.
    top: Frame,
    /// The frames around `top`, outermost first: one per open container
    /// (the first is [`ROOT_FRAME`]), so its length is the depth.
    frames: Vec<Frame>,
    strings: StringTable,
    /// Shapes written so far, in order.
    shapes: Vec<ShapeInfo>,
    /// Keys of all shapes (see [`ShapeInfo::keys`]).
    shape_keys: Vec<KeyRef>,
    /// Shapes by the hash of their key records: (hash, index into `shapes`).
    shape_index: hashbrown::HashTable<(u64, u32)>,
    /// Per depth, the last shape ended there: the guess for the next map
    /// opened at that depth (sibling maps usually share a shape).
    depth_guess: Vec<u32>,
    /// Boxed so that an `Encoder` stays small to move.
    key_cache: Box<[KeyCacheEntry; KEY_CACHE]>,
    root: Option<Pending>,
    generation: u64,
    max_depth: usize,
    /// Whether maps start with a predicted shape (off only in tests, which
    /// check that prediction changes no byte).
    predict: bool,
}

/// Says how far the document is (bytes written, open containers, shapes),
/// not its bytes: an encoder of a megabyte document prints in a line.
impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("len", &self.out.len())
            .field("depth", &self.depth())
            .field("max_depth", &self.max_depth)
            .field("shapes", &self.shapes.len())
            .field("has_root", &self.root.is_some())
            .finish()
    }
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new()
    }
}

/// Default maximum nesting depth of an [`Encoder`].
pub const DEFAULT_MAX_DEPTH: usize = 100_000;

impl Encoder {
    /// A new encoder.
    pub fn new() -> Encoder {
        Encoder::with_capacity(256)
    }

    /// A new encoder whose output buffer starts with `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Encoder {
        let mut out = Vec::with_capacity(capacity.max(16));
        out.extend_from_slice(&MAGIC);
        out.push(VERSION);
        Encoder {
            out,
            slots: Vec::new(),
            keys: Vec::new(),
            top: ROOT_FRAME,
            frames: Vec::new(),
            strings: StringTable::default(),
            shapes: Vec::new(),
            shape_keys: Vec::new(),
            shape_index: hashbrown::HashTable::new(),
            depth_guess: Vec::new(),
            key_cache: Box::new([KeyCacheEntry::default(); KEY_CACHE]),
            root: None,
            generation: next_generation(),
            max_depth: DEFAULT_MAX_DEPTH,
            predict: true,
        }
    }

    /// Sets the maximum nesting depth (default [`DEFAULT_MAX_DEPTH`]);
    /// `begin_array`/`begin_map` beyond it fail with [`ErrorKind::DepthLimit`].
    pub fn set_max_depth(&mut self, depth: usize) {
        self.max_depth = depth;
    }

    /// Current nesting depth (open containers).
    pub fn depth(&self) -> usize {
        self.frames.len()
    }

    /// Bytes written so far (the document is not complete until [`Encoder::finish`]).
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// True if no value has been written yet (a root value, even one held
    /// only in the trailer such as `null` or a small integer, or an open
    /// container makes the encoder non-empty).
    pub fn is_empty(&self) -> bool {
        self.out.len() == HEADER_LEN && self.root.is_none() && self.frames.is_empty()
    }

    /// Forgets everything written, keeping allocated memory for the next document.
    ///
    /// ```
    /// let mut enc = roving::Encoder::new();
    /// enc.begin_map()?;
    /// assert!(enc.i64(1).is_err()); // a map value needs a key first
    /// enc.reset();                  // drop the unfinished document
    /// enc.i64(1)?;
    /// assert_eq!(roving::Document::open(&enc.finish()?)?.root().as_i64(), Some(1));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn reset(&mut self) {
        self.out.truncate(HEADER_LEN);
        self.slots.clear();
        self.keys.clear();
        self.frames.clear();
        self.top = ROOT_FRAME;
        self.strings.clear();
        strings::clear_table(&mut self.shape_index, 1024, |e| e.0);
        self.shapes.clear();
        self.shape_keys.clear();
        self.depth_guess.clear();
        self.root = None;
        self.generation = next_generation();
    }

    // ---- placing values ----------------------------------------------------

    #[inline]
    fn place(&mut self, p: Pending) -> Result<()> {
        let s = self.top.state;
        // An array never expects a key; a map expects one after each value.
        if s > MAP_VALUE {
            return self.place_root(p);
        }
        self.top.state = s << 1;
        self.slots.push(p);
        Ok(())
    }

    /// [`Encoder::place`] outside every container, or in a map expecting a key.
    #[cold]
    fn place_root(&mut self, p: Pending) -> Result<()> {
        if self.top.state != ROOT {
            return Err(state("a map value needs a key first"));
        }
        if self.root.is_some() {
            return Err(state("a document has exactly one root value"));
        }
        self.root = Some(p);
        Ok(())
    }

    /// Writes `null`.
    #[inline]
    pub fn null(&mut self) -> Result<()> {
        self.place(Pending::Special(SPECIAL_NULL))
    }

    /// Writes a boolean.
    #[inline]
    pub fn bool(&mut self, v: bool) -> Result<()> {
        self.place(Pending::Special(if v {
            SPECIAL_TRUE
        } else {
            SPECIAL_FALSE
        }))
    }

    /// Writes a signed integer.
    #[inline]
    pub fn i64(&mut self, v: i64) -> Result<()> {
        let (lo, hi) = inline_int_range(8);
        if v < lo || v > hi {
            let pos = self.int_record(v);
            return self.place(Pending::Ref(pos));
        }
        self.place(Pending::Int(v))
    }

    /// Writes an unsigned integer.
    #[inline]
    pub fn u64(&mut self, v: u64) -> Result<()> {
        if v <= i64::MAX as u64 {
            return self.i64(v as i64);
        }
        let pos = self.out.len();
        self.out.push(TAG_U64);
        self.out.extend_from_slice(&v.to_le_bytes());
        self.place(Pending::Ref(pos))
    }

    /// Writes an `i128` (as a 64-bit integer when it fits, else a big integer).
    pub fn i128(&mut self, v: i128) -> Result<()> {
        if let Ok(x) = i64::try_from(v) {
            return self.i64(x);
        }
        if let Ok(x) = u64::try_from(v) {
            return self.u64(x);
        }
        let mag = v.unsigned_abs().to_le_bytes();
        self.bigint_le(v < 0, &mag)
    }

    /// Writes an integer of any size given as sign and little-endian
    /// magnitude (high zero bytes are ignored). Values that fit in `i64` or
    /// `u64` are written as such, so each integer has one encoding.
    pub fn bigint_le(&mut self, negative: bool, magnitude: &[u8]) -> Result<()> {
        let mut n = magnitude.len();
        while n > 0 && magnitude[n - 1] == 0 {
            n -= 1;
        }
        let mag = &magnitude[..n];
        if n <= 8 {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(mag);
            let m = u64::from_le_bytes(w);
            if !negative {
                return self.u64(m);
            }
            if m <= 1u64 << 63 {
                return self.i64((m as i64).wrapping_neg());
            }
        }
        let pos = self.out.len();
        self.out.push(if negative {
            TAG_BIGINT_NEG
        } else {
            TAG_BIGINT_POS
        });
        write_varint(&mut self.out, n as u64);
        self.out.extend_from_slice(mag);
        self.place(Pending::Ref(pos))
    }

    /// Writes a `num_bigint::BigInt`.
    pub fn bigint(&mut self, v: &num_bigint::BigInt) -> Result<()> {
        let (sign, mag) = v.to_bytes_le();
        self.bigint_le(sign == num_bigint::Sign::Minus, &mag)
    }

    /// Writes a float, bit-exact (as binary32 when that is lossless).
    #[inline]
    pub fn f64(&mut self, v: f64) -> Result<()> {
        let pos = self.out.len();
        let narrow = v as f32;
        let mut rec = [0u8; 9];
        let len = if f32_to_f64_exact(narrow).to_bits() == v.to_bits() {
            rec[0] = TAG_F32;
            rec[1..5].copy_from_slice(&narrow.to_le_bytes());
            5
        } else if let Some((m, e)) = short_decimal(v) {
            rec[0] = TAG_F_DEC;
            rec[1] = e as u8;
            rec[2..6].copy_from_slice(&m.to_le_bytes());
            6
        } else {
            rec[0] = TAG_F64;
            rec[1..9].copy_from_slice(&v.to_le_bytes());
            9
        };
        put_prefix(&mut self.out, &rec, len);
        self.place(Pending::Ref(pos))
    }

    /// Writes a string (stored once per document however often it is written).
    #[inline(always)]
    pub fn str(&mut self, s: &str) -> Result<()> {
        if s.is_empty() {
            return self.place(Pending::Special(SPECIAL_EMPTY_STR));
        }
        let pos = self.strings.intern(&mut self.out, s.as_bytes());
        self.place(Pending::Ref(pos))
    }

    /// Writes a byte string.
    pub fn bytes(&mut self, b: &[u8]) -> Result<()> {
        let pos = self.out.len();
        self.out.push(TAG_BYTES);
        write_varint(&mut self.out, b.len() as u64);
        self.out.extend_from_slice(b);
        self.place(Pending::Ref(pos))
    }

    /// Writes a timestamp.
    pub fn timestamp(&mut self, t: Timestamp) -> Result<()> {
        if Timestamp::new(t.seconds, t.nanos, t.offset).is_none() {
            return Err(Error::new(ErrorKind::Unsupported)
                .with_message("timestamp nanos or offset out of range"));
        }
        let pos = self.out.len();
        self.out.push(if t.offset.is_some() {
            TAG_TIMESTAMP_OFFSET
        } else {
            TAG_TIMESTAMP
        });
        self.out.extend_from_slice(&t.seconds.to_le_bytes());
        self.out.extend_from_slice(&t.nanos.to_le_bytes());
        if let Some(o) = t.offset {
            self.out.extend_from_slice(&o.to_le_bytes());
        }
        self.place(Pending::Ref(pos))
    }

    /// Writes an extension value: an application type id and its bytes.
    pub fn ext(&mut self, type_id: u64, data: &[u8]) -> Result<()> {
        let pos = self.out.len();
        self.out.push(TAG_EXT);
        write_varint(&mut self.out, type_id);
        write_varint(&mut self.out, data.len() as u64);
        self.out.extend_from_slice(data);
        self.place(Pending::Ref(pos))
    }

    /// Writes a typed numeric vector, its data aligned to the element size.
    pub fn vector<T: VectorElement>(&mut self, data: &[T]) -> Result<()> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if cfg!(target_endian = "big") {
            let size = T::ELEM.size();
            let le: Vec<u8> = bytes
                .chunks_exact(size)
                .flat_map(|c| c.iter().rev().copied())
                .collect();
            return self.vector_raw(T::ELEM, &le);
        }
        self.vector_raw(T::ELEM, bytes)
    }

    /// Writes a typed numeric vector from little-endian element bytes
    /// (`data.len()` must be a multiple of the element size).
    pub fn vector_raw(&mut self, elem: ElemType, data: &[u8]) -> Result<()> {
        let size = elem.size();
        if data.len() % size != 0 {
            return Err(Error::new(ErrorKind::Unsupported)
                .with_message("vector data is not a whole number of elements"));
        }
        let pos = self.out.len();
        self.out.push(TAG_VECTOR);
        self.out.push(elem as u8);
        write_varint(&mut self.out, (data.len() / size) as u64);
        let start = self.out.len().next_multiple_of(size);
        self.out.resize(start, 0);
        self.out.extend_from_slice(data);
        self.place(Pending::Ref(pos))
    }

    /// A mark of the last value written, to write it again with [`Encoder::reuse`].
    pub fn mark(&self) -> Option<Mark> {
        // The last value written is the last slot of the open containers
        // (each value is placed as soon as it is complete), or the root.
        let last = if self.frames.is_empty() {
            self.root
        } else {
            self.slots.last().copied()
        };
        last.map(|pending| Mark {
            pending,
            generation: self.generation,
        })
    }

    /// Writes a value marked earlier again, as a reference to the same bytes.
    /// A mark of another document (an earlier one of this encoder, or one
    /// of another encoder) is an [`ErrorKind::EncoderState`] error.
    ///
    /// ```
    /// let mut enc = roving::Encoder::new();
    /// enc.begin_array()?;
    /// enc.begin_map()?;
    /// enc.key("unit")?;
    /// enc.str("kg")?;
    /// enc.end_map()?;
    /// let unit = enc.mark().unwrap(); // the map just written
    /// enc.reuse(unit)?;               // the same map again, stored once
    /// enc.end_array()?;
    /// let bytes = enc.finish()?;
    /// let doc = roving::Document::open(&bytes)?;
    /// assert_eq!(roving::json::to_json(doc.root())?, r#"[{"unit":"kg"},{"unit":"kg"}]"#);
    /// let (a, b) = (doc.root().index(0).unwrap(), doc.root().index(1).unwrap());
    /// assert_eq!(a.as_map().unwrap().offset(), b.as_map().unwrap().offset());
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn reuse(&mut self, mark: Mark) -> Result<()> {
        if mark.generation != self.generation {
            return Err(state("mark from another document"));
        }
        self.place(mark.pending)
    }

    // ---- containers ----------------------------------------------------------

    #[inline]
    fn open(&mut self, kind: FrameKind) -> Result<()> {
        if self.frames.len() >= self.max_depth {
            return Err(depth_error(self.max_depth));
        }
        if self.top.state > MAP_VALUE {
            if self.top.state == MAP_KEY {
                return Err(state("a map value needs a key first"));
            }
            if self.root.is_some() {
                return Err(state("a document has exactly one root value"));
            }
        }
        let guess = match kind {
            FrameKind::Map if self.predict => self
                .depth_guess
                .get(self.frames.len())
                .copied()
                .unwrap_or(NO_GUESS),
            _ => NO_GUESS,
        };
        let (guess_keys, guess_len) = match self.shapes.get(guess as usize) {
            Some(sh) => (sh.keys, sh.len as u32),
            None => (NO_KEYS, 0),
        };
        let inner = Frame {
            state: if kind == FrameKind::Map {
                MAP_KEY
            } else {
                ARRAY
            },
            slots_start: self.slots.len(),
            keys_start: self.keys.len(),
            shape_hash: 0,
            guess,
            matched: 0,
            guess_keys,
            guess_len,
        };
        let outer = std::mem::replace(&mut self.top, inner);
        self.frames.push(outer);
        Ok(())
    }

    /// Starts an array; write its elements, then [`Encoder::end_array`].
    #[inline]
    pub fn begin_array(&mut self) -> Result<()> {
        self.open(FrameKind::Array)
    }

    /// Starts a map; write `key`, value, `key`, value..., then [`Encoder::end_map`].
    #[inline]
    pub fn begin_map(&mut self) -> Result<()> {
        self.open(FrameKind::Map)
    }

    /// Writes the next key of the open map.
    #[inline]
    pub fn key(&mut self, k: &str) -> Result<()> {
        let f = &mut self.top;
        // Fast path: the next key of the predicted shape (only maps have
        // one), compared by its bytes.
        if f.state == MAP_KEY {
            let at = f.guess_keys.wrapping_add(f.matched as usize);
            if let Some(kr) = self.shape_keys.get(at) {
                if kr.len == k.len()
                    && key_eq(self.out.get(kr.data..kr.data + kr.len), k.as_bytes())
                {
                    f.matched += 1;
                    f.state = MAP_VALUE;
                    return Ok(());
                }
            }
        }
        self.key_slow(k)
    }

    /// [`Encoder::key`] for a key that lives for the whole program (serde's
    /// struct field names): the predicted key is recognized by the key's
    /// address, without comparing bytes. The same bytes as [`Encoder::key`].
    #[inline(always)]
    pub(crate) fn key_static(&mut self, k: &'static str) -> Result<()> {
        let f = &mut self.top;
        if f.state == MAP_KEY {
            let at = f.guess_keys.wrapping_add(f.matched as usize);
            if let Some(kr) = self.shape_keys.get(at) {
                if kr.addr == k.as_ptr() as usize && kr.len == k.len() {
                    f.matched += 1;
                    f.state = MAP_VALUE;
                    return Ok(());
                }
            }
        }
        self.key_static_slow(k)
    }

    /// [`Encoder::key_static`] when the address is not the predicted key's:
    /// if the bytes are, the address is remembered for the next map.
    #[inline(never)]
    fn key_static_slow(&mut self, k: &'static str) -> Result<()> {
        let f = &self.top;
        let at = (f.matched < f.guess_len && f.state == MAP_KEY)
            .then_some(f.guess_keys + f.matched as usize);
        self.key(k)?;
        if let (Some(at), f) = (at, &self.top) {
            // Matched the predicted key by its bytes (the guess is checked
            // first: a dropped guess has `guess_keys` `NO_KEYS`).
            if f.guess != NO_GUESS && f.matched as usize == at + 1 - f.guess_keys {
                if let Some(kr) = self.shape_keys.get_mut(at) {
                    kr.addr = k.as_ptr() as usize;
                }
            }
        }
        Ok(())
    }

    /// [`Encoder::key`] when the key is not the predicted one.
    #[inline(never)]
    fn key_slow(&mut self, k: &str) -> Result<()> {
        let f = &mut self.top;
        if f.state != MAP_KEY {
            return Err(state("a key outside a map, or two keys in a row"));
        }
        f.state = MAP_VALUE;
        if f.guess != NO_GUESS {
            self.drop_guess();
        }
        let pos = if k.is_empty() {
            EMPTY_KEY
        } else {
            self.key_record(k.as_bytes())
        };
        self.top.shape_hash = shape_hash_step(self.top.shape_hash, pos);
        self.keys.push(pos);
        Ok(())
    }

    /// Gives up the open map's predicted shape: pushes the keys matched so
    /// far as if they had been looked up one by one.
    #[cold]
    fn drop_guess(&mut self) {
        let f = &mut self.top;
        if f.guess == NO_GUESS {
            return;
        }
        let sh = self.shapes[f.guess as usize];
        for kr in &self.shape_keys[sh.keys..sh.keys + f.matched as usize] {
            f.shape_hash = shape_hash_step(f.shape_hash, kr.record);
            self.keys.push(kr.record);
        }
        f.guess = NO_GUESS;
        f.matched = 0;
        f.guess_len = 0;
        f.guess_keys = NO_KEYS;
    }

    /// Writes the next key of the open map, like [`Encoder::key`], and
    /// returns a [`KeyId`] for writing the same key again in this document
    /// with [`Encoder::key_id`] (without looking its string up).
    pub fn key_with_id(&mut self, k: &str) -> Result<KeyId> {
        self.key(k)?;
        let pos = match &self.top {
            // Matched as the next key of the predicted shape.
            f if f.matched > 0 && f.guess != NO_GUESS => self
                .shape_keys
                .get(f.guess_keys + f.matched as usize - 1)
                .map_or(EMPTY_KEY, |kr| kr.record),
            _ => self.keys.last().copied().unwrap_or(EMPTY_KEY),
        };
        Ok(KeyId {
            pos,
            generation: self.generation,
        })
    }

    /// Writes the next key of the open map: a key of this document, by the
    /// [`KeyId`] that [`Encoder::key_with_id`] returned (a key id of another
    /// document, of this encoder or another, is an
    /// [`ErrorKind::EncoderState`] error).
    #[inline]
    pub fn key_id(&mut self, id: KeyId) -> Result<()> {
        if id.generation != self.generation {
            return Err(state("key from another document"));
        }
        let f = &mut self.top;
        if f.state != MAP_KEY {
            return Err(state("a key outside a map, or two keys in a row"));
        }
        f.state = MAP_VALUE;
        // Fast path: the next key of the predicted shape, compared by record.
        if f.matched < f.guess_len
            && self
                .shape_keys
                .get(f.guess_keys + f.matched as usize)
                .is_some_and(|kr| kr.record == id.pos)
        {
            f.matched += 1;
            return Ok(());
        }
        if f.guess != NO_GUESS {
            self.drop_guess();
        }
        self.top.shape_hash = shape_hash_step(self.top.shape_hash, id.pos);
        self.keys.push(id.pos);
        Ok(())
    }

    /// The string record of a key, through a small cache keyed by the key's
    /// address (struct field names and interned keys repeat at the same
    /// address); a hit is confirmed by comparing the bytes.
    #[inline]
    fn key_record(&mut self, k: &[u8]) -> usize {
        let addr = k.as_ptr() as usize;
        let slot = ((addr >> 3) ^ k.len().wrapping_mul(31)) & (KEY_CACHE - 1);
        let e = self.key_cache[slot];
        if e.addr == addr
            && e.len == k.len()
            && e.generation == self.generation
            && self.out.get(e.data..e.data + e.len) == Some(k)
        {
            return e.record;
        }
        let record = self.strings.intern(&mut self.out, k);
        let data = record + str_header_len(k.len());
        self.key_cache[slot] = KeyCacheEntry {
            addr,
            len: k.len(),
            record,
            data,
            generation: self.generation,
        };
        record
    }

    /// Ends the open array. Returns a mark of it.
    #[inline]
    pub fn end_array(&mut self) -> Result<Mark> {
        if self.top.state != ARRAY {
            return Err(state("end_array without an open array"));
        }
        let Some(outer) = self.frames.pop() else {
            return Err(state("end_array without an open array"));
        };
        let f = std::mem::replace(&mut self.top, outer);
        let n = self.slots.len() - f.slots_start;
        let p = if n == 0 {
            Pending::Special(SPECIAL_EMPTY_ARRAY)
        } else {
            let (width, pos) =
                self.write_container(f.slots_start, |w| 1 + varint_len(n as u64) + n * w);
            self.write_record(f.slots_start, TAG_ARRAY, n as u64, width, pos);
            Pending::Ref(pos)
        };
        self.slots.truncate(f.slots_start);
        self.place(p)?;
        Ok(Mark {
            pending: p,
            generation: self.generation,
        })
    }

    /// Ends the open map. If a key was written twice, the map keeps the
    /// first position and the last value. Returns a mark of it.
    #[inline]
    pub fn end_map(&mut self) -> Result<Mark> {
        let f = &self.top;
        if f.state != MAP_KEY {
            if f.state == MAP_VALUE {
                return Err(state("a key without a value"));
            }
            return Err(state("end_map without an open map"));
        }
        let guessed = f.guess != NO_GUESS && f.guess_len == f.matched;
        if !guessed {
            self.drop_guess();
        }
        let Some(outer) = self.frames.pop() else {
            return Err(state("end_map without an open map"));
        };
        let f = std::mem::replace(&mut self.top, outer);
        let n = if guessed {
            f.matched as usize
        } else {
            self.keys.len() - f.keys_start
        };
        let p = if n == 0 {
            Pending::Special(SPECIAL_EMPTY_MAP)
        } else {
            let shape = if guessed {
                f.guess
            } else {
                self.shape(f.keys_start, f.slots_start, f.shape_hash)
            };
            if !guessed {
                // (A guessed shape came from `depth_guess` at this depth,
                // where no map has ended since: it is there already.)
                let depth = self.frames.len();
                if depth >= self.depth_guess.len() {
                    self.depth_guess.resize(depth + 1, NO_GUESS);
                }
                self.depth_guess[depth] = shape;
            }
            let Some(sh) = self.shapes.get(shape as usize) else {
                return Err(state("unknown shape"));
            };
            let (shape_pos, abs_from, guess) = (sh.pos, sh.abs_from, sh.width);
            let head = |pos: usize| {
                let rel = ((pos - shape_pos) as u64) << 1;
                let head = if rel >= abs_from {
                    ((shape_pos as u64) << 1) | 1
                } else {
                    rel
                };
                debug_assert_eq!(head, shape_ref(shape_pos, pos));
                head
            };
            let here = self.out.len();
            let pos = if self.write_record_as(f.slots_start, TAG_MAP, head(here), guess) {
                here
            } else {
                let n = self.slots.len() - f.slots_start;
                let (width, pos) = self.write_container(f.slots_start, |w| 3 + n * w);
                self.write_record(f.slots_start, TAG_MAP, head(pos), width, pos);
                if let Some(sh) = self.shapes.get_mut(shape as usize) {
                    sh.width = width;
                }
                pos
            };
            Pending::Ref(pos)
        };
        self.slots.truncate(f.slots_start);
        self.keys.truncate(f.keys_start);
        self.place(p)?;
        Ok(Mark {
            pending: p,
            generation: self.generation,
        })
    }

    /// Completes the document and returns its bytes.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        self.finish_root()?;
        Ok(std::mem::take(&mut self.out))
    }

    /// Completes the document, returns its bytes and resets the encoder for
    /// the next document (keeping its allocations). The next output buffer
    /// starts a little larger than this document, so that documents of
    /// similar size grow no buffer (as [`to_vec`](crate::to_vec) does).
    ///
    /// ```
    /// let mut enc = roving::Encoder::new();
    /// let mut docs = Vec::new();
    /// for n in 0..3 {
    ///     enc.begin_map()?;
    ///     enc.key("n")?;
    ///     enc.i64(n)?;
    ///     enc.end_map()?;
    ///     docs.push(enc.finish_reset()?); // the encoder is ready for the next one
    /// }
    /// let doc = roving::Document::open(&docs[2])?;
    /// assert_eq!(doc.root().get("n").and_then(|v| v.as_i64()), Some(2));
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn finish_reset(&mut self) -> Result<Vec<u8>> {
        self.finish_root()?;
        let mut out = Vec::with_capacity(next_capacity(self.out.len()));
        out.extend_from_slice(&MAGIC);
        out.push(VERSION);
        let doc = std::mem::replace(&mut self.out, out);
        self.reset();
        Ok(doc)
    }

    /// Completes the document, passes its bytes to `f`, then resets the
    /// encoder keeping every allocation, output buffer included (for
    /// callers that copy the bytes anyway, e.g. into a Python `bytes`).
    pub fn finish_with<R>(&mut self, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        self.finish_root()?;
        let r = f(&self.out);
        self.reset();
        Ok(r)
    }

    /// Completes the document, appending its bytes to `dst`, and resets the encoder.
    pub fn finish_into(&mut self, dst: &mut Vec<u8>) -> Result<()> {
        self.finish_root()?;
        dst.extend_from_slice(&self.out);
        self.reset();
        Ok(())
    }

    /// Whether this encoder's memory is small enough to keep as a thread's
    /// spare (see [`encode_document`]).
    fn fits_spare(&self) -> bool {
        const MAX: usize = 1 << 16;
        self.strings.capacity() <= MAX
            && self.shape_index.capacity() <= MAX
            && self.slots.capacity() <= MAX
            && self.keys.capacity() <= MAX
            && self.frames.capacity() <= MAX
            && self.shapes.capacity() <= MAX
            && self.shape_keys.capacity() <= MAX
            && self.depth_guess.capacity() <= MAX
    }

    fn finish_root(&mut self) -> Result<()> {
        if !self.frames.is_empty() {
            return Err(state("unclosed array or map"));
        }
        let root = self.root.ok_or_else(|| state("no value was written"))?;
        self.slots.push(root);
        let start = self.slots.len() - 1;
        let (width, pos) = self.write_container(start, |w| 2 + w);
        let tag = TAG_ROOT | width_code(width);
        self.out.push(tag);
        let slot = match self.slots.get(start).map(|p| p.kind()) {
            Some(PendingKind::Ref(t)) => encode_ref(t, pos, width),
            Some(_) => self.slots[start].0,
            None => 0,
        };
        self.out.extend_from_slice(&slot.to_le_bytes()[..width]);
        self.out.push(tag);
        self.slots.pop();
        Ok(())
    }

    // ---- internals -------------------------------------------------------------

    fn int_record(&mut self, v: i64) -> usize {
        let pos = self.out.len();
        if let Ok(x) = i8::try_from(v) {
            self.out.push(TAG_I8);
            self.out.push(x as u8);
        } else if let Ok(x) = i16::try_from(v) {
            self.out.push(TAG_I16);
            self.out.extend_from_slice(&x.to_le_bytes());
        } else if let Ok(x) = i32::try_from(v) {
            self.out.push(TAG_I32);
            self.out.extend_from_slice(&x.to_le_bytes());
        } else {
            self.out.push(TAG_I64);
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        pos
    }

    /// Chooses the slot width of a container holding `slots[start..]`, writes records for integers too large to be
    /// inline at that width, and returns (width, position of the container).
    /// `size(w)` is the container record's size at width `w`.
    #[inline(always)]
    fn write_container(&mut self, start: usize, size: impl Fn(usize) -> usize) -> (usize, usize) {
        let here = self.out.len();
        // Fast path: the narrowest width that holds every reference also
        // holds every inline integer, so it is the best choice. The width
        // a value needs depends only on its highest set bit, so the needs
        // are OR-ed together and measured once: a reference needs
        // `min(distance, target) << 2`, an integer `|v| << 3` (`!v` for a
        // negative `v`, so that `-32..=31` needs one byte).
        let (mut refs, mut ints) = (0u64, 0u64);
        let here4 = (here as u64) << 2;
        for p in &self.slots[start..] {
            let v = p.0;
            match v & 3 {
                // `v` is `t << 2`, so `(here - t) << 2` is `here4 - v`.
                SLOT_REL => refs |= (here4 - v).min(v),
                SLOT_INT => {
                    let i = (v as i64) >> 2;
                    ints |= ((i ^ (i >> 63)) as u64) << 3;
                }
                _ => {}
            }
        }
        let ref_w = need_width(refs);
        if need_width(ints) <= ref_w {
            return (ref_w, here);
        }
        self.write_wide_ints(start, ref_w, size)
    }

    /// [`Encoder::write_container`] when some integer is wider than the
    /// references need: compares each width against writing the wide
    /// integers as records instead.
    ///
    /// Only widths from `ref_w` (the narrowest that holds every reference
    /// now; writing integer records first only moves the container away)
    /// up to the first one that needs no integer record are candidates:
    /// wider ones need none either and are bigger.
    #[inline(never)]
    fn write_wide_ints(
        &mut self,
        start: usize,
        ref_w: usize,
        size: impl Fn(usize) -> usize,
    ) -> (usize, usize) {
        let here = self.out.len();
        let mut best = (usize::MAX, 8usize);
        for &w in WIDTHS.iter().filter(|&&w| w >= ref_w) {
            let (lo, hi) = inline_int_range(w);
            let mut extra = 0usize;
            for p in &self.slots[start..] {
                if let PendingKind::Int(v) = p.kind() {
                    if v < lo || v > hi {
                        extra += int_record_len(v);
                    }
                }
            }
            let pos = here + extra;
            let fits = |t: usize| ref_fits(t, pos, w);
            // Every reference must fit: to earlier records, and to each
            // integer record written now (at `here` onwards, in slot order;
            // a middle one may be too far for a relative reference and too
            // late for an absolute one even when the first one fits).
            let mut at = here;
            let ok = self.slots[start..].iter().all(|p| match p.kind() {
                PendingKind::Ref(t) => fits(t),
                PendingKind::Int(v) if v < lo || v > hi => {
                    let rec = at;
                    at += int_record_len(v);
                    fits(rec)
                }
                _ => true,
            });
            if ok {
                let total = extra + size(w);
                if total < best.0 {
                    best = (total, w);
                }
                if extra == 0 {
                    break;
                }
            }
        }
        let w = best.1;
        let (lo, hi) = inline_int_range(w);
        for i in start..self.slots.len() {
            if let PendingKind::Int(v) = self.slots[i].kind() {
                if v < lo || v > hi {
                    let pos = self.int_record(v);
                    self.slots[i] = Pending::Ref(pos);
                }
            }
        }
        (w, self.out.len())
    }

    /// [`Encoder::write_container`] and [`Encoder::write_record`] in one
    /// pass over the slots, for a guessed width: writes the record at
    /// `width` while measuring the width the slots need, and keeps it
    /// only if that is `width` (no integer wider than the references
    /// need, as in `write_container`'s fast path). Returns whether the
    /// record was written (at the end of the output; else nothing was).
    #[inline(always)]
    fn write_record_as(&mut self, start: usize, tag: u8, head: u64, width: usize) -> bool {
        #[inline(always)]
        fn fused<const W: usize>(out: &mut Vec<u8>, tag: u8, head: u64, slots: &[Pending]) -> bool {
            let pos = out.len();
            match put_record::<W>(out, tag, head, slots) {
                Some((refs, ints)) if need_width(refs) == W && need_width(ints) <= W => true,
                Some(_) => {
                    out.truncate(pos);
                    false
                }
                None => false,
            }
        }
        let (out, slots) = (&mut self.out, &self.slots[start..]);
        match width {
            1 => fused::<1>(out, tag, head, slots),
            2 => fused::<2>(out, tag, head, slots),
            4 => fused::<4>(out, tag, head, slots),
            8 => fused::<8>(out, tag, head, slots),
            _ => false,
        }
    }

    /// Writes the record of a container holding `slots[start..]` at the
    /// end of the output: `tag` with the code of `width`, the varint
    /// `head`, then the slots (`pos` is where the record starts, the end
    /// of the output).
    #[inline(always)]
    fn write_record(&mut self, start: usize, tag: u8, head: u64, width: usize, pos: usize) {
        debug_assert_eq!(pos, self.out.len());
        let (out, slots) = (&mut self.out, &self.slots[start..]);
        // The widths the slots need are not used here (the caller chose
        // `width`); unused, their computation is optimized away.
        let _ = match width {
            1 => put_record::<1>(out, tag, head, slots),
            2 => put_record::<2>(out, tag, head, slots),
            4 => put_record::<4>(out, tag, head, slots),
            _ => put_record::<8>(out, tag, head, slots),
        };
    }

    /// Finds or writes the shape of the map whose keys are `keys[kstart..]`
    /// (`hash` is their running hash), first merging duplicate keys (first
    /// position, last value). Returns its index in `shapes`.
    fn shape(&mut self, kstart: usize, vstart: usize, hash: u64) -> u32 {
        if let Some(i) = self.find_shape(kstart, hash) {
            return i;
        }
        let mut hash = hash;
        if self.dedup_keys(kstart, vstart) {
            hash = self.keys[kstart..]
                .iter()
                .fold(0u64, |h, &k| shape_hash_step(h, k));
            if let Some(i) = self.find_shape(kstart, hash) {
                return i;
            }
        }
        let keys_at = self.shape_keys.len();
        for &k in &self.keys[kstart..] {
            self.shape_keys.push(key_ref(&self.out, k));
        }
        let keys = &self.shape_keys[keys_at..];
        let n = keys.len();
        // Width of the key slots.
        let here = self.out.len();
        let width = keys
            .iter()
            .filter(|k| k.record != EMPTY_KEY)
            .map(|k| ref_width(k.record, here))
            .max()
            .unwrap_or(1);
        let pos = here;
        self.out.push(TAG_SHAPE | width_code(width));
        write_varint(&mut self.out, n as u64);
        for k in keys {
            let raw = if k.record == EMPTY_KEY {
                (SPECIAL_EMPTY_STR << 2) | SLOT_SPECIAL
            } else {
                encode_ref(k.record, pos, width)
            };
            self.out.extend_from_slice(&raw.to_le_bytes()[..width]);
        }
        if n > SHAPE_LINEAR_MAX {
            let t = index_table_size(n);
            let e = index_entry_width(n);
            let mut table = vec![0usize; t];
            for (i, k) in keys.iter().enumerate() {
                let bytes = self.out.get(k.data..k.data + k.len).unwrap_or(&[]);
                let mut h = index_home(key_hash(bytes), t);
                while table[h] != 0 {
                    h = (h + 1) & (t - 1);
                }
                table[h] = i + 1;
            }
            for v in table {
                self.out.extend_from_slice(&v.to_le_bytes()[..e]);
            }
        }
        self.shape_keys.push(KEYS_END);
        let index = self.shapes.len() as u32;
        self.shapes.push(ShapeInfo {
            keys: keys_at,
            len: n,
            pos,
            abs_from: abs_from(pos),
            width: 0,
        });
        self.shape_index.insert_unique(hash, (hash, index), |e| e.0);
        index
    }

    /// The index of the shape whose keys are `keys[kstart..]`, if written.
    fn find_shape(&self, kstart: usize, hash: u64) -> Option<u32> {
        let keys = &self.keys[kstart..];
        self.shape_index
            .find(hash, |&(h, i)| {
                let s = &self.shapes[i as usize];
                h == hash
                    && s.len == keys.len()
                    && self.shape_keys[s.keys..s.keys + s.len]
                        .iter()
                        .map(|k| k.record)
                        .eq(keys.iter().copied())
            })
            .map(|e| e.1)
    }

    /// Merges duplicate keys of the open map; returns whether there were any.
    fn dedup_keys(&mut self, kstart: usize, vstart: usize) -> bool {
        let n = self.keys.len() - kstart;
        let has_dup = if n <= 16 {
            let k = &self.keys[kstart..];
            (1..n).any(|i| k[..i].contains(&k[i]))
        } else {
            let mut seen = hashbrown::HashSet::with_capacity(n);
            self.keys[kstart..].iter().any(|k| !seen.insert(*k))
        };
        if !has_dup {
            return false;
        }
        let mut first: HashMap<usize, usize> = HashMap::new();
        let mut keys = Vec::new();
        let mut vals: Vec<Pending> = Vec::new();
        for i in 0..n {
            let k = self.keys[kstart + i];
            let v = self.slots[vstart + i];
            match first.get(&k) {
                Some(&j) => vals[j] = v,
                None => {
                    first.insert(k, keys.len());
                    keys.push(k);
                    vals.push(v);
                }
            }
        }
        self.keys.truncate(kstart);
        self.keys.extend(keys);
        self.slots.truncate(vstart);
        self.slots.extend(vals);
        true
    }
}

thread_local! {
    /// Each thread's spare encoder for [`encode_document`]: its string and
    /// shape tables keep their memory from one document to the next.
    static SPARE: std::cell::RefCell<Option<Encoder>> = const { std::cell::RefCell::new(None) };
    /// Size of the last document [`encode_document`] made on this thread.
    static LAST_LEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The output capacity to start a document with after one of `last`
/// bytes: a little more, so that documents of similar size grow no buffer.
fn next_capacity(last: usize) -> usize {
    last + last / 8 + 256
}

/// Encodes one document with `write`, on this thread's spare encoder (or a
/// new one when that is in use, e.g. by a nested call). The output buffer
/// starts with `capacity` bytes, or by default a little more than the last
/// document made this way on this thread, so that documents of similar
/// size grow no buffer; a buffer that turns out more than twice too big is
/// shrunk. The output is the same as with a new [`Encoder`].
pub(crate) fn encode_document(
    capacity: Option<usize>,
    max_depth: usize,
    write: impl FnOnce(&mut Encoder) -> Result<()>,
) -> Result<Vec<u8>> {
    let spare = SPARE
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .ok()
        .flatten();
    let mut enc = spare.unwrap_or_else(|| Encoder::with_capacity(16));
    let cap =
        capacity.unwrap_or_else(|| next_capacity(LAST_LEN.try_with(|c| c.get()).unwrap_or(0)));
    enc.out = Vec::with_capacity(cap.max(HEADER_LEN));
    enc.out.extend_from_slice(&MAGIC);
    enc.out.push(VERSION);
    enc.max_depth = max_depth;
    let done = write(&mut enc).and_then(|()| enc.finish_root());
    let mut doc = std::mem::take(&mut enc.out);
    enc.reset();
    if enc.fits_spare() {
        let _ = SPARE.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = Some(enc);
            }
        });
    }
    done?;
    let _ = LAST_LEN.try_with(|c| c.set(doc.len()));
    if doc.capacity() > 2 * doc.len() + 4096 {
        doc.shrink_to_fit();
    }
    Ok(doc)
}

/// The shortest decimal `m * 10^e` that reads back as exactly `v`, if `m`
/// fits in `i32` and `|e| <= 22` (so [`f_dec_value`] is exact).
#[inline]
fn short_decimal(v: f64) -> Option<(i32, i8)> {
    if !v.is_finite() || v == 0.0 {
        return None;
    }
    match short_decimal_fast(v) {
        Some(decided) => decided,
        None => short_decimal_ryu(v),
    }
}

/// [`short_decimal`] without formatting, for the common cases: an integral
/// value, or one with at most nine decimals. `None` when it cannot decide
/// (then the shortest decimal text decides).
///
/// The first `k` for which `round(v * 10^k) / 10^k == v` gives the shortest
/// decimal with at most `k` decimals that reads back as `v` (the division is
/// correctly rounded, as in [`f_dec_value`]), which is the shortest
/// round-tripping text (ryu's) stripped of trailing zeros.
#[inline]
fn short_decimal_fast(v: f64) -> Option<Option<(i32, i8)>> {
    const POW10: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
    // 1.5 * 2^52: for |x| < 2^51, `x + MAGIC` is `MAGIC + round(x)` (to
    // nearest, ties to even) exactly, one unit per bit pattern.
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let a = v.abs();
    if a < 1.0e6 {
        // Integral (`v.trunc() == v` is a libm call on baseline x86-64).
        if (v + MAGIC) - MAGIC == v {
            return Some(decimal_fit(v as i64, 0, v));
        }
        // The shortest decimal in one step: for |v| < 10^6, v * 10^9 is
        // within 1/4 of m_k * 10^(9-k) (m_k at the first k that reads back
        // as v, if k <= 9), so it rounds to exactly that (whichever way
        // ties go: it is no tie); its trailing zeros give k. A candidate
        // that does not read back (more than nine decimals, or fewer found
        // by stripping) goes to the loop. `|v * 10^9| < 10^15 < 2^51`, so
        // the rounded value is the difference of the bit patterns.
        let m = (v * 1e9 + MAGIC).to_bits() as i64 - MAGIC.to_bits() as i64;
        let mut u = m.unsigned_abs();
        let mut k = 9i8;
        // Three zeros at a time first (six decimals are common), then one.
        while k > 3 && u % 1000 == 0 {
            u /= 1000;
            k -= 3;
        }
        while k > 1 && u % 10 == 0 {
            u /= 10;
            k -= 1;
        }
        if let Ok(u) = i32::try_from(u) {
            let m = if m < 0 { -u } else { u };
            if f_dec_value(m, -k).to_bits() == v.to_bits() {
                return Some(Some((m, -k)));
            }
        }
    } else if a >= 4_503_599_627_370_496.0 || v as i64 as f64 == v {
        // Integral (every finite value from 2^52 up is).
        if a >= 9.0e18 {
            return None;
        }
        return Some(decimal_fit(v as i64, 0, v));
    }
    for (k, p) in POW10.iter().enumerate().skip(1) {
        let m = round_half_away(v * p);
        if m < i32::MIN as f64 || m > i32::MAX as f64 {
            break;
        }
        let e = -(k as i8);
        if f_dec_value(m as i32, e).to_bits() == v.to_bits() {
            return Some(Some((m as i32, e)));
        }
    }
    // Ten decimals or more need a mantissa of at least |v| * 10^10, which
    // does not fit an i32 once |v| >= 0.25.
    if a >= 0.25 {
        return Some(None);
    }
    None
}

/// `x.round()` (halves away from zero) for `|x| < 2^52`, without the libm
/// call that `f64::round` is on baseline x86-64; other `x` as `f64::round`.
#[inline]
fn round_half_away(x: f64) -> f64 {
    if x.abs() >= 4_503_599_627_370_496.0 || x.is_nan() {
        return x.round();
    }
    let t = x as i64 as f64; // truncated toward zero, exact here
    let frac = x - t; // exact: both are within 2^52 and t is x truncated
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// [`short_decimal`] from the shortest round-tripping decimal text.
#[inline(never)]
fn short_decimal_ryu(v: f64) -> Option<(i32, i8)> {
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(v).as_bytes();
    let (mant, exp) = match text.iter().position(|&c| c == b'e') {
        Some(i) => (
            &text[..i],
            std::str::from_utf8(&text[i + 1..])
                .ok()?
                .parse::<i32>()
                .ok()?,
        ),
        None => (text, 0),
    };
    let mut m: i64 = 0;
    let mut e = exp;
    let mut after_point = false;
    let mut neg = false;
    for &c in mant {
        match c {
            b'-' => neg = true,
            b'.' => after_point = true,
            b'0'..=b'9' => {
                m = m.checked_mul(10)?.checked_add((c - b'0') as i64)?;
                if after_point {
                    e -= 1;
                }
            }
            _ => return None,
        }
    }
    decimal_fit(if neg { -m } else { m }, e, v)
}

/// `m * 10^e` without trailing zeros in `m`, if it fits a decimal float
/// record (i32 mantissa, exponent within range) and reads back as `v`.
fn decimal_fit(mut m: i64, mut e: i32, v: f64) -> Option<(i32, i8)> {
    while m != 0 && m % 10 == 0 {
        m /= 10;
        e += 1;
    }
    let m = i32::try_from(m).ok()?;
    let e = i8::try_from(e)
        .ok()
        .filter(|e| e.unsigned_abs() <= F_DEC_MAX_EXP as u8)?;
    (f_dec_value(m, e).to_bits() == v.to_bits()).then_some((m, e))
}

/// Writes a container record at the end of `out` at slot width `W`: the
/// `tag` with `W`'s code, the varint `head`, then `slots` (a reference
/// `t << 2` relative, `(pos - t) << 2`, if that fits, else absolute).
/// Returns the needs of the slots as `write_container` measures them
/// (references' and integers', to pass to `need_width`), or `None` if
/// nothing was written (unreachable: the capacity is reserved first).
#[inline(always)]
fn put_record<const W: usize>(
    out: &mut Vec<u8>,
    tag: u8,
    head: u64,
    slots: &[Pending],
) -> Option<(u64, u64)> {
    let pos = out.len();
    let pos4 = (pos as u64) << 2;
    let len = 1 + 10 + slots.len() * W;
    out.reserve(len);
    let spare = out.spare_capacity_mut();
    let n = put_head(spare, tag | width_code(W), head)?;
    let dst = &mut spare[n..];
    let (mut refs, mut ints) = (0u64, 0u64);
    let mut written = 0;
    for (d, p) in dst.chunks_exact_mut(W).zip(slots) {
        let v = p.0;
        // `v` is `t << 2` for a reference, so `(pos - t) << 2` is `pos4 - v`.
        let rel = pos4.wrapping_sub(v);
        let raw = match v & 3 {
            SLOT_REL => {
                refs |= rel.min(v);
                if W >= 8 || rel < 1 << (8 * W) {
                    rel
                } else {
                    v | SLOT_ABS
                }
            }
            SLOT_INT => {
                let i = (v as i64) >> 2;
                ints |= ((i ^ (i >> 63)) as u64) << 3;
                v
            }
            _ => v,
        };
        if let Some(d) = d.first_chunk_mut::<W>() {
            if let Some(b) = raw.to_le_bytes().first_chunk::<W>() {
                *d = b.map(std::mem::MaybeUninit::new);
                written += W;
            }
        }
    }
    let new_len = pos + n + written;
    if written != slots.len() * W || new_len > pos + len {
        return None; // unreachable
    }
    // SAFETY: the `n` head bytes (tag and varint, `put_head`) and
    // `written` slot bytes after the old length were all written above,
    // within the `len` bytes of capacity reserved (checked).
    unsafe { out.set_len(new_len) };
    Some((refs, ints))
}

/// Appends the first `len` bytes of `rec` to `out`, as one fixed-size
/// copy into reserved capacity (no call to `memcpy`).
#[inline(always)]
fn put_prefix<const N: usize>(out: &mut Vec<u8>, rec: &[u8; N], len: usize) {
    out.reserve(N);
    let old = out.len();
    match out.spare_capacity_mut().first_chunk_mut::<N>() {
        Some(d) if len <= N => {
            *d = rec.map(std::mem::MaybeUninit::new);
            // SAFETY: the `N >= len` bytes of capacity after the old
            // length were all written just above.
            unsafe { out.set_len(old + len) };
        }
        // Unreachable after the reserve (and `len <= N` at every call).
        _ => out.extend_from_slice(&rec[..len.min(N)]),
    }
}

/// Writes a container record's head into spare capacity: the `tag` byte,
/// then `head` as a varint (at most 10 bytes). Returns the bytes written,
/// or `None` if `spare` is shorter than 11 bytes.
#[inline(always)]
fn put_head(spare: &mut [std::mem::MaybeUninit<u8>], tag: u8, head: u64) -> Option<usize> {
    let (t, rest) = spare.split_first_mut()?;
    let rest = rest.get_mut(..10)?;
    t.write(tag);
    let mut n = 0;
    let mut v = head;
    for d in rest.iter_mut() {
        n += 1;
        if v < 0x80 {
            d.write(v as u8);
            break;
        }
        d.write(v as u8 | 0x80);
        v >>= 7;
    }
    Some(1 + n)
}

/// Where the bytes of the key record at `record` are (written by the
/// string table: a short string or a `0C` record).
fn key_ref(out: &[u8], record: usize) -> KeyRef {
    if record == EMPTY_KEY {
        return KeyRef {
            record,
            data: 0,
            len: 0,
            addr: 0,
        };
    }
    let len = crate::read::str_record(out, record).map_or(0, <[u8]>::len);
    let data = record + str_header_len(len);
    KeyRef {
        record,
        data,
        len,
        addr: 0,
    }
}

/// Equality of `b` with bytes of the document (`None`: none), for up to
/// 16 bytes without a call to `memcmp` (two overlapping loads).
#[inline(always)]
fn key_eq(a: Option<&[u8]>, b: &[u8]) -> bool {
    let Some(a) = a else {
        return false;
    };
    let n = b.len();
    if a.len() != n {
        return false;
    }
    use strings::{u32_at, u64_at};
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        8..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        _ => a == b,
    }
}

/// Size of the header of a string record of `len` bytes.
#[inline]
fn str_header_len(len: usize) -> usize {
    if len <= SHORT_STR_MAX {
        1
    } else {
        1 + varint_len(len as u64)
    }
}

#[cold]
#[inline(never)]
fn depth_error(max: usize) -> Error {
    Error::new(ErrorKind::DepthLimit).with_message(format!("more than {max} levels"))
}

#[cold]
fn state(msg: &str) -> Error {
    Error::new(ErrorKind::EncoderState).with_message(msg)
}

fn int_record_len(v: i64) -> usize {
    if i8::try_from(v).is_ok() {
        2
    } else if i16::try_from(v).is_ok() {
        3
    } else if i32::try_from(v).is_ok() {
        5
    } else {
        9
    }
}

/// Narrowest slot width (1, 2, 4, 8) whose bits hold `x`.
#[inline]
fn need_width(x: u64) -> usize {
    if x < 1 << 8 {
        1
    } else if x < 1 << 16 {
        2
    } else if x < 1 << 32 {
        4
    } else {
        8
    }
}

/// Narrowest slot width holding a reference from `pos` to `target`.
#[inline]
fn ref_width(target: usize, pos: usize) -> usize {
    need_width(((pos - target).min(target) as u64) << 2)
}

#[inline]
fn fits_in(x: u64, width: usize) -> bool {
    width >= 8 || x < (1u64 << (width * 8))
}

/// Whether a reference from a container at `pos` to `target` fits `width` bytes.
#[inline]
fn ref_fits(target: usize, pos: usize, width: usize) -> bool {
    ref_width(target, pos) <= width
}

/// [`ShapeInfo::abs_from`] of a shape at `shape`: the absolute reference
/// `(shape << 1) | 1` takes `L` varint bytes, so it is the shorter one
/// exactly when the relative one needs more, i.e. is at least `2^(7L)`.
fn abs_from(shape: usize) -> u64 {
    let len = varint_len(((shape as u64) << 1) | 1);
    1u64.checked_shl(7 * len as u32).unwrap_or(u64::MAX)
}

/// The shape reference of a map at `pos`: a varint of `distance << 1`, or
/// of `(shape << 1) | 1` (absolute) when that is shorter.
#[inline]
#[cfg_attr(not(debug_assertions), allow(dead_code))]
fn shape_ref(shape: usize, pos: usize) -> u64 {
    let rel = ((pos - shape) as u64) << 1;
    let abs = ((shape as u64) << 1) | 1;
    if varint_len(abs) < varint_len(rel) {
        abs
    } else {
        rel
    }
}

#[inline]
fn encode_ref(target: usize, pos: usize, width: usize) -> u64 {
    let d = (pos - target) as u64;
    if fits_in(d << 2, width) {
        (d << 2) | SLOT_REL
    } else {
        ((target as u64) << 2) | SLOT_ABS
    }
}

#[cfg(test)]
mod decimal_tests {
    use super::{short_decimal_fast, short_decimal_ryu};

    fn check(v: f64) {
        if !v.is_finite() || v == 0.0 {
            return;
        }
        if let Some(fast) = short_decimal_fast(v) {
            assert_eq!(fast, short_decimal_ryu(v), "{v:e} ({:#x})", v.to_bits());
            DECIDED.with(|d| d.set(d.get() + 1));
        }
    }

    thread_local! {
        static DECIDED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// The fast path decides exactly as the shortest decimal text does.
    #[test]
    fn fast_decimal_agrees_with_ryu() {
        let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next();
        for _ in 0..200_000 {
            let r = next();
            // Decimals with 0 to 12 places and up to 10 digits, their
            // neighbours one ulp away, and arbitrary bit patterns.
            let places = (r % 13) as i32;
            let m = (next() % 20_000_000_000) as i64 - 10_000_000_000;
            let v = m as f64 / 10f64.powi(places);
            check(v);
            check(f64::from_bits(v.to_bits().wrapping_add(1)));
            check(f64::from_bits(v.to_bits().wrapping_sub(1)));
            check(f64::from_bits(next()));
            check((next() % 1_000_000_000_000) as f64 * 10f64.powi((r % 12) as i32));
        }
        for v in [
            0.5,
            0.25,
            0.1,
            0.3,
            2147483647.0,
            2147483648.0,
            214748364.8,
            214748364.7,
            1e22,
            1e23,
            9.0e18,
            -1.5,
            0.2147483647,
            0.24999999999,
        ] {
            check(v);
            check(-v);
        }
        // The fast path decides most of these (else the test proves little).
        assert!(DECIDED.with(|d| d.get()) > 500_000);
    }
}

#[cfg(test)]
mod prediction_tests {
    use super::Encoder;

    /// Writes a random value: maps whose keys come from a small set (so
    /// sibling maps share, extend, cut short or repeat keys), nested.
    fn write(e: &mut Encoder, next: &mut impl FnMut() -> u64, depth: usize) {
        const KEYS: [&str; 7] = ["a", "b", "", "name", "a_longer_key_0123", "b", "x"];
        match next() % 6 {
            0 | 1 if depth < 4 => {
                e.begin_map().unwrap();
                let n = next() % 6;
                let base = next() % 3;
                for i in 0..n {
                    // Mostly a fixed order, sometimes a different key.
                    let k = if next() % 5 == 0 {
                        next() % 7
                    } else {
                        (base + i) % 7
                    };
                    e.key(KEYS[k as usize]).unwrap();
                    write(e, next, depth + 1);
                }
                e.end_map().unwrap();
            }
            2 if depth < 4 => {
                e.begin_array().unwrap();
                for _ in 0..next() % 5 {
                    write(e, next, depth + 1);
                }
                e.end_array().unwrap();
            }
            3 => e
                .str(["a", "name", "zz", ""][(next() % 4) as usize])
                .unwrap(),
            _ => e.i64((next() % 20_000) as i64 - 10_000).unwrap(),
        }
    }

    /// Predicted shapes give exactly the bytes of looking every key up.
    #[test]
    fn prediction_changes_no_byte() {
        let mut rng = crate::test_rng::Rng(0x2545_F491_4F6C_DD1D);
        let mut next = move || rng.next();
        let (mut with, mut without) = (Encoder::new(), Encoder::new());
        without.predict = false;
        for _ in 0..3000 {
            let seed = next();
            for e in [&mut with, &mut without] {
                let mut y = crate::test_rng::Rng(seed | 1);
                let mut r = move || y.next();
                e.begin_array().unwrap();
                for _ in 0..r() % 8 {
                    write(e, &mut r, 1);
                }
                e.end_array().unwrap();
            }
            assert_eq!(
                with.finish_reset().unwrap(),
                without.finish_reset().unwrap()
            );
        }
    }
}

#[cfg(test)]
mod misuse_tests {
    use super::Encoder;
    use crate::error::ErrorKind;

    fn state_error<T: std::fmt::Debug>(r: crate::error::Result<T>) {
        match r {
            Err(e) => assert_eq!(*e.kind(), ErrorKind::EncoderState, "{e}"),
            Ok(v) => panic!("expected an encoder state error, got {v:?}"),
        }
    }

    /// After `finish_reset`, a document of the same size as the last one
    /// fits the new output buffer without growing it.
    #[test]
    fn finish_reset_sizes_the_next_buffer() {
        let mut e = Encoder::new();
        let write = |e: &mut Encoder| {
            e.begin_array().unwrap();
            for i in 0..20_000 {
                e.str(&format!("s{i}")).unwrap();
            }
            e.end_array().unwrap();
        };
        write(&mut e);
        let first = e.finish_reset().unwrap();
        assert!(first.len() > 1 << 16);
        let cap = e.out.capacity();
        assert!(cap >= first.len());
        write(&mut e);
        assert_eq!(e.out.capacity(), cap, "the buffer grew");
        assert_eq!(e.finish_reset().unwrap(), first);
    }

    /// Every misuse of the key/value protocol is an error, at any depth.
    #[test]
    fn misuse_is_an_error() {
        for depth in 0..3 {
            let open = |e: &mut Encoder| {
                for _ in 0..depth {
                    e.begin_array().unwrap();
                }
            };
            let mut e = Encoder::new();
            open(&mut e);
            e.begin_map().unwrap();
            state_error(e.str("value without a key"));
            state_error(e.begin_array());
            state_error(e.end_array());
            e.key("k").unwrap();
            state_error(e.key("two keys"));
            state_error(e.end_map());
            e.i64(1).unwrap();
            state_error(e.i64(2));
            e.end_map().unwrap();
            state_error(e.end_map());
            state_error(e.key("key in an array or at the root"));

            let mut e = Encoder::new();
            open(&mut e);
            e.begin_array().unwrap();
            state_error(e.end_map());
            state_error(e.finish_reset());
        }
        let mut e = Encoder::new();
        e.null().unwrap();
        state_error(e.null());
        state_error(e.begin_map());
        state_error(e.end_array());
        assert!(e.finish_reset().is_ok());
        state_error(Encoder::new().finish_reset());
    }

    /// A mark or key id works only in the document it was taken from: one
    /// of another encoder (whose first document has the same number of
    /// resets behind it) or of an earlier document is refused, never read
    /// as a position in this one.
    #[test]
    fn marks_and_key_ids_of_other_documents_are_refused() {
        let mut a = Encoder::new();
        a.begin_map().unwrap();
        let id = a.key_with_id("secret-from-a").unwrap();
        a.str("value").unwrap();
        let mark = a.mark().unwrap();
        let mut b = Encoder::new();
        b.begin_map().unwrap();
        b.key("bbbbbbbbbbbbbbbbbbbbbbbbbbbb").unwrap();
        b.str("bbbbbbbbbbbbbbbbbbbbbbbbbbbb").unwrap();
        state_error(b.key_id(id));
        b.key("x").unwrap();
        state_error(b.reuse(mark));
        // `a`'s own marks work until its next document.
        a.key_id(id).unwrap();
        a.reuse(mark).unwrap();
        a.end_map().unwrap();
        let first = a.finish_reset().unwrap();
        assert!(crate::Document::open(&first).is_ok());
        a.begin_map().unwrap();
        state_error(a.key_id(id));
        a.key("k").unwrap();
        state_error(a.reuse(mark));
    }

    /// Document numbers drawn on many threads are all distinct (and never
    /// 0), so a mark cannot pass for one of another thread's encoder.
    #[test]
    fn generations_are_unique_across_threads() {
        let per_thread: Vec<Vec<u64>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..1000).map(|_| super::next_generation()).collect()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<u64> = per_thread.into_iter().flatten().collect();
        all.extend((0..1000).map(|_| super::next_generation()));
        assert!(!all.contains(&0));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }

    /// `is_empty` is true only before any value: a root held in the
    /// trailer (`null`, a small integer) or an open container counts.
    #[test]
    fn is_empty_until_a_value_is_written() {
        let mut e = Encoder::new();
        assert!(e.is_empty());
        e.i64(7).unwrap();
        assert!(!e.is_empty());
        e.reset();
        assert!(e.is_empty());
        e.begin_array().unwrap();
        assert!(!e.is_empty());
        e.reset();
        e.null().unwrap();
        assert!(!e.is_empty());
    }
}
