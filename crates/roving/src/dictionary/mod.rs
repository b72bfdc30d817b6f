//! Shared dictionaries (`docs/FORMAT.md` section 23): strings and map
//! shapes that many small documents refer to instead of carrying them.
//!
//! A [`Dictionary`] is an append-only list of entries (entry `n` never
//! changes), named by a chained content hash ([`Dictionary::id_at`]). A
//! document written against the first `n` entries starts with a binding
//! record naming `n` and `id_at(n)`, and its records are read after the
//! dictionary's *base*: the records of those entries (section 23.3). So a
//! document reads with any later state of the same dictionary, and with
//! another or a shorter one fails ([`ErrorKind::DictionaryMismatch`]).
//!
//! One file per concern:
//!
//! * `mod.rs`: the type, its entries and their rules;
//! * `hash.rs`: the entries' canonical bytes and the id chain;
//! * `bytes.rs`: the dictionary's own bytes and deltas (roving documents);
//! * `open.rs`: reading a bound document (`Document::open_with`).
//!
//! Writing a document against a dictionary is the encoder's job
//! (`Encoder::with_dictionary`, in `encode/dictionary.rs`).
//!
//! ```
//! use roving::{Dictionary, Document, Encoder};
//! let mut dict = Dictionary::new();
//! let write = |dict: &mut Dictionary, n: i64| {
//!     let mut enc = Encoder::with_dictionary(dict);
//!     enc.begin_map()?;
//!     enc.key("name")?;
//!     enc.str("Ada")?;
//!     enc.key("n")?;
//!     enc.i64(n)?;
//!     enc.end_map()?;
//!     enc.finish_growing(dict)
//! };
//! let first = write(&mut dict, 1)?;  // carries its shape, which the dictionary learns
//! let second = write(&mut dict, 2)?; // refers to the dictionary's shape
//! assert!(second.len() < first.len());
//! let mut scratch = Vec::new();
//! let doc = Document::open_with(&second, &dict, &mut scratch)?;
//! assert_eq!(doc.root().get("n").and_then(|v| v.as_i64()), Some(2));
//! let err = Document::open(&second).unwrap_err();
//! assert_eq!(err.kind(), &roving::ErrorKind::DictionaryRequired);
//! # Ok::<(), roving::Error>(())
//! ```

mod bytes;
mod hash;
mod learn;
mod open;

use std::sync::OnceLock;

use hashbrown::HashMap;

use crate::encode::Encoder;
use crate::error::{Error, ErrorKind, Result};
use crate::validate::BaseSeed;

pub use learn::{Learner, LEARN_AFTER, LEARN_MAX_BASE, LEARN_MAX_LEN, LEARN_MIN_LEN};
pub use open::{open_bound, resolve};

/// The base length (see [`Dictionary::base_len`]) past which the
/// dictionaries that grow by themselves, a Store's and a record stream's,
/// stop growing: opening a bound document copies the base (which is
/// validated once per growth, not per document), so a store of ever new
/// shapes must not make every read slower. Records of shapes met later carry their own shapes,
/// as without a dictionary. A user's `Dictionary` has no such limit.
pub const AUTO_GROWTH_MAX_BASE: usize = 1024;

/// One entry of a dictionary.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// A string (not empty), that documents may use as a value.
    Str(String),
    /// A shape: a list of one or more distinct keys, in order.
    Shape(Vec<String>),
}

impl Entry {
    /// Checks the entry's own rules: a string is not empty, a shape has
    /// at least one key and no key twice.
    fn check(&self) -> Result<()> {
        match self {
            Entry::Str(s) if s.is_empty() => Err(bad("a string entry is empty")),
            Entry::Str(_) => Ok(()),
            Entry::Shape(keys) => {
                if keys.is_empty() {
                    return Err(bad("a shape entry has no key"));
                }
                let mut seen = hashbrown::HashSet::with_capacity(keys.len());
                if keys.iter().any(|k| !seen.insert(k.as_str())) {
                    return Err(bad("a shape entry names a key twice"));
                }
                Ok(())
            }
        }
    }
}

/// A shared dictionary: an append-only list of strings and shapes that
/// documents refer to (see the [module documentation](self)).
pub struct Dictionary {
    entries: Vec<Entry>,
    /// `ids[n]` = `id_at(n)`, for `n` in `0..=len`.
    ids: Vec<u64>,
    /// Index of each entry, to find one again (and refuse duplicates).
    index: HashMap<Entry, usize>,
    frozen: bool,
    /// The base (section 23.3), built entry by entry: its bytes are the
    /// encoder's output.
    base: Box<Encoder>,
    /// `ends[n]` = length of the base of the first `n` entries.
    ends: Vec<usize>,
    /// The validated base of all the entries, made on the first open of a
    /// bound document after the last entry was added (see
    /// [`Dictionary::base_seed`]).
    seed: OnceLock<Option<Box<BaseSeed>>>,
}

impl Default for Dictionary {
    fn default() -> Self {
        Dictionary::new()
    }
}

impl Clone for Dictionary {
    fn clone(&self) -> Self {
        let mut d = Dictionary::new();
        for e in &self.entries {
            d.push(e.clone());
        }
        d.frozen = self.frozen;
        d
    }
}

impl PartialEq for Dictionary {
    /// Equal entries (whether frozen or not).
    fn eq(&self, o: &Dictionary) -> bool {
        self.entries == o.entries
    }
}

impl Eq for Dictionary {}

/// The size and id, not the entries.
impl std::fmt::Debug for Dictionary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dictionary")
            .field("len", &self.len())
            .field("id", &format_args!("{:016x}", self.id()))
            .field("frozen", &self.frozen)
            .finish()
    }
}

impl Dictionary {
    /// An empty dictionary (it grows as documents are written with it).
    pub fn new() -> Dictionary {
        let base = Box::new(Encoder::dictionary_base());
        let ends = vec![base.len()];
        Dictionary {
            entries: Vec::new(),
            ids: vec![hash::ID_START],
            index: HashMap::new(),
            frozen: false,
            base,
            ends,
            seed: OnceLock::new(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if the dictionary has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The id of the whole dictionary: `id_at(len())`.
    pub fn id(&self) -> u64 {
        self.ids[self.entries.len()]
    }

    /// The id of the first `n` entries (`None` if `n > len()`): a hash
    /// chained over the entries' contents, so the same entries give the
    /// same id in every process.
    pub fn id_at(&self, n: usize) -> Option<u64> {
        self.ids.get(n).copied()
    }

    /// Stops the growth: documents written with a frozen dictionary refer
    /// to its entries but add none (their other shapes are written in the
    /// document, as without a dictionary).
    pub fn freeze(&mut self) {
        self.frozen = true;
    }

    /// Whether [`freeze`](Self::freeze) was called.
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Entry `n`.
    pub fn entry(&self, n: usize) -> Option<&Entry> {
        self.entries.get(n)
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Adds a string entry (documents written afterwards refer to it for
    /// that string value) and returns its index; an equal string entry
    /// already there is returned instead. Fails on an empty string or a
    /// frozen dictionary.
    pub fn add_string(&mut self, s: &str) -> Result<usize> {
        self.add(Entry::Str(s.to_owned()))
    }

    /// Adds a shape entry (a list of distinct keys) and returns its index;
    /// an equal shape entry already there is returned instead. Fails on an
    /// empty list, a repeated key or a frozen dictionary.
    pub fn add_shape<S: AsRef<str>>(&mut self, keys: &[S]) -> Result<usize> {
        self.add(Entry::Shape(
            keys.iter().map(|k| k.as_ref().to_owned()).collect(),
        ))
    }

    /// Adds `e` (or finds it).
    fn add(&mut self, e: Entry) -> Result<usize> {
        if let Some(&i) = self.index.get(&e) {
            return Ok(i);
        }
        e.check()?;
        if self.frozen {
            return Err(bad("the dictionary is frozen"));
        }
        Ok(self.push(e))
    }

    /// Appends a checked, new entry.
    fn push(&mut self, e: Entry) -> usize {
        let n = self.entries.len();
        self.ids.push(hash::next_id(self.ids[n], &e));
        self.base.write_dictionary_entry(&e);
        self.ends.push(self.base.len());
        self.seed = OnceLock::new();
        self.index.insert(e.clone(), n);
        self.entries.push(e);
        n
    }

    /// The length of the base of all the entries (`docs/FORMAT.md`
    /// section 23.3): what opening a document bound to all of them copies
    /// and validates besides the document itself, so its cost per open.
    ///
    /// ```
    /// let mut dict = roving::Dictionary::new();
    /// assert_eq!(dict.base_len(), 3);
    /// dict.add_shape(&["id", "name"])?;
    /// assert!(dict.base_len() > 3);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn base_len(&self) -> usize {
        self.ends[self.entries.len()]
    }

    /// If `buf` is a document bound to this dictionary (to all its entries
    /// or to fewer), the length of the base it is read after: the plain
    /// document that [`open_bound`] and [`resolve`] make of it starts with
    /// that many bytes of the dictionary's base, and its own records
    /// follow. `None` if `buf` is not bound, or names entries this
    /// dictionary lacks. Bases of fewer entries are prefixes of longer
    /// ones, so what a reader keeps of a base (the keys of its shapes,
    /// say) holds for every document bound to the same dictionary.
    ///
    /// ```
    /// let mut dict = roving::Dictionary::new();
    /// dict.add_shape(&["id"])?;
    /// let mut enc = roving::Encoder::with_dictionary(&dict);
    /// enc.begin_map()?;
    /// enc.key("id")?;
    /// enc.i64(7)?;
    /// enc.end_map()?;
    /// let bound = enc.finish()?;
    /// assert_eq!(dict.bound_base_len(&bound), Some(dict.base_len()));
    /// assert_eq!(dict.bound_base_len(&roving::to_vec(&7)?), None);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn bound_base_len(&self, buf: &[u8]) -> Option<usize> {
        let b = crate::layout::read_binding(buf).ok()??;
        open::check(&b, self).ok().map(|n| self.ends[n])
    }

    /// The base of the first `n` entries (`n <= len()`): the bytes a
    /// document bound to them is read after.
    pub(crate) fn base(&self, n: usize) -> &[u8] {
        &self.base.written()[..self.ends[n]]
    }

    /// What validating the base of all the entries leaves in a validator,
    /// so that a bound document is validated from the end of its base on
    /// (the base of fewer entries is a prefix of it): made once after each
    /// growth. `None` if the base does not validate, which the encoder
    /// never writes; then bound documents are validated whole.
    pub(crate) fn base_seed(&self) -> Option<&BaseSeed> {
        self.seed
            .get_or_init(|| BaseSeed::of(self.base(self.len())).map(Box::new))
            .as_deref()
    }
}

/// A [`ErrorKind::BadDictionary`] error saying `msg`.
#[cold]
pub(crate) fn bad(msg: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::BadDictionary).with_message(msg)
}
