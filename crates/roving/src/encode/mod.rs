//! Writing documents: the [`Encoder`] builder.
//!
//! Encoding is one pass with no intermediate tree: every value is written
//! as soon as it is complete (children before parents), and an open
//! container only keeps the slots of its children on a stack. Strings are
//! stored once (all of them, keys and values), maps with the same keys in
//! the same order share one shape, and each container's slot width is the
//! narrowest that holds all its slots.
//!
//! This file holds the [`Encoder`] itself (its state, construction,
//! placing a value in the open container, marks and finishing a
//! document); each other job has a file of its own:
//!
//! - `scalars`: writing null, booleans, numbers, strings, byte strings,
//!   timestamps, extension values and typed vectors;
//! - `decimal`: the shortest decimal form of a float (decimal float records);
//! - `containers`: opening and closing arrays and maps;
//! - `keys`: writing map keys, with the predicted shape's fast path;
//! - `numbers`: an array of only integers or only floats, written packed
//!   as a number array record (format version 2) when it ends;
//! - `key_cache`: a key's string record by the key's address;
//! - `shapes`: finding or writing the shape of a map;
//! - `widths`: choosing a container's slot width;
//! - `records`: writing a container record's bytes;
//! - `pending`: a value waiting for its slot;
//! - `strings`: the string table (every string stored once);
//! - `copy`: writing a value read from another document;
//! - `dictionary`: writing a document against a shared dictionary;
//! - `spare`: one-shot encoding on a thread's spare encoder.

mod containers;
mod copy;
mod decimal;
mod dictionary;
mod key_cache;
mod keys;
mod matrix_rows;
mod num_map;
mod numbers;
mod packed_shape;
mod pending;
mod records;
mod scalars;
mod shapes;
mod spare;
mod str_array;
mod stride_array;
mod strings;
mod value_sharing;
mod widths;

use crate::error::{Error, ErrorKind, Result};
use crate::layout::*;
use containers::{Frame, MAP_VALUE, ROOT, ROOT_FRAME};
use key_cache::{KeyCacheEntry, KEY_CACHE};
use pending::{Pending, PendingKind};
use shapes::{ShapeInfo, ShapeKey};
pub(crate) use spare::encode_document;
use spare::next_capacity;
use strings::StringTable;
use widths::encode_reference;

/// A handle to a value already written, for writing it again as a shared
/// reference (the document is a DAG: a value may have several parents).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The value, as its container's slot holds it.
    pending: Pending,
    /// The document it belongs to (see [`next_generation`]).
    generation: u64,
}

/// A key written to a document, for writing it again in the same document
/// with [`Encoder::key_id`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyId {
    /// Position of the key's string record ([`EMPTY_KEY`](shapes::EMPTY_KEY)
    /// for `""`).
    pos: usize,
    /// The document it belongs to (see [`next_generation`]).
    generation: u64,
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
    /// The document written so far.
    out: Vec<u8>,
    /// The values of the open containers, outermost first (each frame's
    /// from its `slots_start`).
    slots: Vec<Pending>,
    /// The key records of the open maps looked up so far (each frame's
    /// from its `keys_start`).
    keys: Vec<usize>,
    /// The innermost open container ([`ROOT_FRAME`] when none is open),
    /// kept out of `frames` so that placing a value reaches it directly.
    top: Frame,
    /// The frames around `top`, outermost first: one per open container
    /// (the first is [`ROOT_FRAME`]), so its length is the depth.
    frames: Vec<Frame>,
    /// Every string written, to store each once.
    strings: StringTable,
    /// Shapes written so far, in order.
    shapes: Vec<ShapeInfo>,
    /// Keys of all shapes (see [`ShapeInfo::keys`]).
    shape_keys: Vec<ShapeKey>,
    /// Shapes by the hash of their key records: (hash, index into `shapes`).
    shape_index: hashbrown::HashTable<(u64, u32)>,
    /// Per depth, the last shape ended there: the guess for the next map
    /// opened at that depth (sibling maps usually share a shape).
    depth_guess: Vec<u32>,
    /// The string records of recent keys, by the keys' addresses (see
    /// [`Encoder::key_record`]). Boxed so that an `Encoder` stays small
    /// to move.
    key_cache: Box<[KeyCacheEntry; KEY_CACHE]>,
    /// By the key a map is the value of (its key record), the last shape
    /// ended there: the guess for the next map under that key (a record's
    /// `"user"` is a user, whatever map ended last at that depth). See
    /// [`containers::KeyGuess`].
    key_guess: Box<[containers::KeyGuess; containers::KEY_GUESS]>,
    /// The root value, once written.
    root: Option<Pending>,
    /// The document's number (see [`next_generation`]), carried by its
    /// marks and key ids.
    generation: u64,
    /// The format version the document needs so far ([`VERSION_1`] until a
    /// version 2 record is written): byte 2 of the header when finished.
    version: u8,
    /// Maximum nesting depth (see [`Encoder::set_max_depth`]).
    max_depth: usize,
    /// Whether maps start with a predicted shape (off only in tests, which
    /// check that prediction changes no byte).
    predict: bool,
    /// One past the highest record position a [`Mark`] taken by
    /// [`Encoder::mark`] holds: an array whose element records start
    /// below it is not packed (its records must stay where the mark says).
    /// Atomic only so that `mark` can take `&self` and `Encoder` stay `Sync`.
    marked: std::sync::atomic::AtomicUsize,
    /// Scratch space of [`Encoder::pack_numbers`] and
    /// [`Encoder::try_matrix_rows`] (kept for its allocation).
    scratch: Vec<u8>,
    /// The floats that serde sequences hold back while all their elements
    /// are floats (`serde::ser`), each sequence's after its outer one's.
    pub(crate) float_run: Vec<f64>,
    /// The dictionary entries of an encoder made by
    /// [`Encoder::with_dictionary`] (until reset).
    bound: Option<dictionary::Bound>,
    /// Whether `own_strs` is kept: set by `use_dictionary` (even for an
    /// empty dictionary), cleared by `reset`.
    track_strs: bool,
    /// The value strings of a document written against a dictionary that
    /// it wrote as records (not found in the base): their records'
    /// offsets, for [`Encoder::own_value_strings`].
    own_strs: Vec<usize>,
    /// Scratch space of [`Encoder::array_str`] (once used).
    str_scratch: Option<Box<str_array::StrListScratch>>,
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
        out.push(VERSION_1);
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
            key_guess: Box::new([containers::KeyGuess::NONE; containers::KEY_GUESS]),
            root: None,
            generation: next_generation(),
            version: VERSION_1,
            max_depth: DEFAULT_MAX_DEPTH,
            predict: true,
            marked: std::sync::atomic::AtomicUsize::new(0),
            scratch: Vec::new(),
            float_run: Vec::new(),
            bound: None,
            track_strs: false,
            own_strs: Vec::new(),
            str_scratch: None,
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
        self.out.len() == self.start_len() && self.root.is_none() && self.frames.is_empty()
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
        self.strings.set_bounded(true);
        self.strings.set_logging(false);
        strings::clear_table(&mut self.shape_index, 1024, |e| e.0);
        self.shapes.clear();
        self.shape_keys.clear();
        self.depth_guess.clear();
        self.root = None;
        if self
            .str_scratch
            .as_ref()
            .is_some_and(|s| s.capacity() > 1 << 17)
        {
            // A list of more strings than this leaves scratch space (about
            // 18 bytes a string) not worth keeping for the next document.
            self.str_scratch = None;
        }
        self.float_run.clear();
        self.version = VERSION_1;
        *self.marked.get_mut() = 0;
        self.bound = None;
        self.track_strs = false;
        self.own_strs.clear();
        self.generation = next_generation();
    }

    /// Marks the document as needing format `version` (at least): a writer
    /// of a record that only version 2 defines calls this, and the header
    /// says the highest version asked for when the document is finished.
    #[inline(always)]
    pub(crate) fn require_version(&mut self, version: u8) {
        self.version = self.version.max(version);
    }

    // ---- placing values ----------------------------------------------------

    /// Places the complete value `pending` in the open container (or as the
    /// root value).
    #[inline]
    fn place(&mut self, pending: Pending) -> Result<()> {
        let s = self.top.state;
        // An array never expects a key; a map expects one after each value.
        if s > MAP_VALUE {
            return self.place_root(pending);
        }
        self.top.state = s << 1;
        self.slots.push(pending);
        Ok(())
    }

    /// [`Encoder::place`] outside every container, in a map expecting a
    /// key, or in a map opened with its keys.
    #[cold]
    fn place_root(&mut self, pending: Pending) -> Result<()> {
        if self.top.state == containers::MAP_PACKED {
            self.check_packed_room()?;
            self.slots.push(pending);
            return Ok(());
        }
        if self.top.state != ROOT {
            return Err(encoder_state_error("a map value needs a key first"));
        }
        if self.root.is_some() {
            return Err(encoder_state_error("a document has exactly one root value"));
        }
        self.root = Some(pending);
        Ok(())
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
        if let Some(PendingKind::Record(t)) = last.map(|p| p.kind()) {
            // Its record stays where it is (see `pack_numbers`).
            self.marked
                .fetch_max(t + 1, std::sync::atomic::Ordering::Relaxed);
        }
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
            return Err(encoder_state_error("mark from another document"));
        }
        self.place(mark.pending)
    }

    /// Completes the document and returns its bytes.
    pub fn finish(mut self) -> Result<Vec<u8>> {
        self.finish_root()?;
        self.unbase();
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
        let mut doc = Vec::new();
        if self.bound_output(&mut doc) {
            self.rewind();
            return Ok(doc);
        }
        let mut out = Vec::with_capacity(next_capacity(self.out.len()));
        out.extend_from_slice(&MAGIC);
        out.push(VERSION_1);
        let doc = std::mem::replace(&mut self.out, out);
        self.reset();
        Ok(doc)
    }

    /// Completes the document, passes its bytes to `f`, then resets the
    /// encoder keeping every allocation, output buffer included (for
    /// callers that copy the bytes anyway, e.g. into a Python `bytes`).
    pub fn finish_with<R>(&mut self, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        self.finish_root()?;
        let mut doc = std::mem::take(&mut self.scratch);
        doc.clear();
        if self.bound_output(&mut doc) {
            let r = f(&doc);
            self.scratch = doc;
            self.rewind();
            return Ok(r);
        }
        self.scratch = doc;
        let r = f(&self.out);
        self.reset();
        Ok(r)
    }

    /// Completes the document, appending its bytes to `dst`, and resets the encoder.
    pub fn finish_into(&mut self, dst: &mut Vec<u8>) -> Result<()> {
        self.finish_root()?;
        if self.bound_output(dst) {
            self.rewind();
            return Ok(());
        }
        dst.extend_from_slice(&self.out);
        self.reset();
        Ok(())
    }

    /// Completes the document: checks that every container is closed and
    /// a root value was written, and writes the trailer (the root slot).
    fn finish_root(&mut self) -> Result<()> {
        if !self.frames.is_empty() {
            return Err(encoder_state_error("unclosed array or map"));
        }
        let root = self
            .root
            .ok_or_else(|| encoder_state_error("no value was written"))?;
        if let Some(v) = self.out.get_mut(2) {
            *v = self.version;
        }
        self.slots.push(root);
        let start = self.slots.len() - 1;
        let (width, pos) = self.write_container(start, |w| 2 + w);
        let tag = TAG_ROOT | width_code(width);
        self.out.push(tag);
        let slot = match self.slots.get(start).map(|p| p.kind()) {
            Some(PendingKind::Record(t)) => encode_reference(t, pos, width),
            Some(_) => self.slots[start].0,
            None => 0,
        };
        self.out.extend_from_slice(&slot.to_le_bytes()[..width]);
        self.out.push(tag);
        self.slots.pop();
        Ok(())
    }
}

/// The error of opening a container past the depth limit `max`.
#[cold]
#[inline(never)]
fn depth_error(max: usize) -> Error {
    Error::new(ErrorKind::DepthLimit).with_message(format!("more than {max} levels"))
}

/// The error of a misuse of the key/value protocol, saying `msg`.
#[cold]
fn encoder_state_error(msg: &str) -> Error {
    Error::new(ErrorKind::EncoderState).with_message(msg)
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
