//! Writing a document against a shared dictionary (`docs/FORMAT.md`
//! section 23): the encoder first writes the dictionary's base (the
//! records of its entries, which its string and shape tables then know),
//! so the document's maps of a dictionary shape and its dictionary
//! strings refer to the base; when finished, the base is replaced by a
//! binding record that names it.

use super::shapes::{shape_hash_step, EMPTY_KEY};
use super::Encoder;
use crate::dictionary::{Dictionary, Entry};
use crate::error::Result;
use crate::layout::*;

/// What a bound encoder's document needs: the entries it may refer to.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bound {
    /// Number of dictionary entries the base holds.
    count: u64,
    /// Their id.
    id: u64,
    /// Length of the base (the document's own records start there).
    base_len: usize,
    /// Shapes of the base (those after are the document's own).
    shapes: usize,
    /// Entries of `shape_keys` of the base's shapes.
    shape_keys: usize,
    /// Strings of the base.
    strings: usize,
}

impl Encoder {
    /// An encoder for a document written against `dict`: its maps whose
    /// keys are a shape of `dict`, and its strings that are string entries
    /// of `dict`, refer to the dictionary instead of being written. Finish
    /// it with [`finish_growing`](Self::finish_growing) for the dictionary
    /// (unless frozen) to learn the document's other shapes, or with any
    /// other `finish` to leave it unchanged. The document then opens with
    /// [`Document::open_with`](crate::Document::open_with) and `dict` or
    /// any later state of it. (An empty dictionary gives a plain document.)
    pub fn with_dictionary(dict: &Dictionary) -> Encoder {
        let mut e = Encoder::new();
        e.use_dictionary(dict);
        e
    }

    /// Resets the encoder (as [`reset`](Self::reset)) for a document
    /// written against `dict`, as [`with_dictionary`](Self::with_dictionary)
    /// does, keeping its allocations. The encoder stays bound to `dict`
    /// (as it is now) after `finish_reset`, `finish_with` and
    /// `finish_into`, until [`reset`](Self::reset) or another
    /// `use_dictionary`; an encoder already bound to this state of `dict`
    /// keeps its base (nothing is written again).
    pub fn use_dictionary(&mut self, dict: &Dictionary) {
        if let Some(b) = self.bound {
            if b.id == dict.id() && b.count == dict.len() as u64 {
                self.rewind();
                return;
            }
        }
        self.reset();
        self.track_strs = true;
        if dict.is_empty() {
            return;
        }
        self.out.clear();
        self.out.extend_from_slice(&BASE_HEADER);
        // The base's strings stay in the table (see `set_bounded`).
        self.strings.set_bounded(false);
        for entry in dict.entries() {
            self.write_dictionary_entry(entry);
        }
        let base_len = self.out.len();
        *self.marked.get_mut() = base_len;
        // The log starts after the base: its strings stay.
        self.strings.set_logging(true);
        self.bound = Some(Bound {
            count: dict.len() as u64,
            id: dict.id(),
            base_len,
            shapes: self.shapes.len(),
            shape_keys: self.shape_keys.len(),
            strings: self.strings.len(),
        });
    }

    /// Whether the encoder writes against a dictionary (see
    /// [`use_dictionary`](Self::use_dictionary)).
    pub fn is_bound(&self) -> bool {
        self.bound.is_some()
    }

    /// Forgets the document written after the base of a bound encoder
    /// (as [`reset`](Self::reset) does, but keeping the base and its
    /// strings and shapes).
    pub(super) fn rewind(&mut self) {
        let Some(b) = self.bound else {
            return self.reset();
        };
        self.out.truncate(b.base_len);
        self.own_strs.clear();
        self.slots.clear();
        self.keys.clear();
        self.frames.clear();
        self.top = super::containers::ROOT_FRAME;
        let added = self.strings.len().saturating_sub(b.strings);
        // A small document's strings are taken out one by one (the log
        // lists them); a larger one's in a pass over the table.
        if added > 0 && !self.strings.forget_logged() {
            self.strings.retain_before(b.base_len, added);
        }
        self.strings.clear_log();
        if self.shapes.len() > b.shapes {
            self.shapes.truncate(b.shapes);
            self.shape_keys.truncate(b.shape_keys);
            self.shape_index.retain(|e| (e.1 as usize) < b.shapes);
        }
        // A guess of a base shape stays good for the next document (small
        // documents against a dictionary mostly repeat their shapes); one
        // of this document's own shapes is gone.
        for guess in &mut self.depth_guess {
            if *guess as usize >= b.shapes {
                *guess = super::containers::NO_GUESS;
            }
        }
        self.root = None;
        self.version = VERSION_1;
        *self.marked.get_mut() = b.base_len;
        self.generation = super::next_generation();
    }

    /// The header and binding record of a bound encoder's document.
    fn head(&self, b: &Bound) -> ([u8; 32], usize) {
        let mut out = [0u8; 32];
        out[..HEADER_LEN].copy_from_slice(&BASE_HEADER);
        let n = binding_into(&mut out[HEADER_LEN..], b.count, b.id);
        (out, HEADER_LEN + n)
    }

    /// Appends the finished document of a bound encoder (its header and
    /// binding, then its records after the base) to `dst`.
    pub(super) fn bound_output(&self, dst: &mut Vec<u8>) -> bool {
        let Some(b) = self.bound else {
            return false;
        };
        let (head, n) = self.head(&b);
        dst.reserve(n + self.out.len() - b.base_len);
        dst.extend_from_slice(&head[..n]);
        dst.extend_from_slice(&self.out[b.base_len..]);
        true
    }

    /// Adds the shapes the document written so far holds itself (those
    /// not in the dictionary it was written against) to `dict`, unless
    /// `dict` is frozen: call it before `finish`, so that later documents
    /// refer to them. [`finish_growing`](Self::finish_growing) does both.
    pub fn grow_dictionary(&self, dict: &mut Dictionary) {
        if dict.is_frozen() {
            return;
        }
        for keys in self.own_shapes() {
            // A shape of a document is a valid entry; a dictionary that
            // has it already returns it.
            let _ = dict.add_shape(&keys);
        }
    }

    /// [`finish`](Self::finish), then adds the shapes the document wrote
    /// itself to `dict` (unless it is frozen), so that later documents
    /// refer to them.
    pub fn finish_growing(self, dict: &mut Dictionary) -> Result<Vec<u8>> {
        if self.frames.is_empty() && self.root.is_some() {
            self.grow_dictionary(dict);
        }
        self.finish()
    }

    /// The value strings a document written against a dictionary (see
    /// [`use_dictionary`](Self::use_dictionary)) wrote as records of its
    /// own, not those of the dictionary, in the order written: what a
    /// [`Learner`](crate::dictionary::Learner) counts. A string is listed
    /// once, unless the document is long enough for the string table to
    /// forget it between two of its uses (section 7 of FORMAT.md); strings
    /// packed into a string array record (section 6.15) are not listed.
    /// Empty for an encoder not set up with a dictionary.
    pub fn own_value_strings(&self) -> impl Iterator<Item = &str> + '_ {
        self.own_strs.iter().filter_map(|&pos| {
            // Records this encoder wrote from `&str`s: valid UTF-8.
            str_record(&self.out, pos).and_then(|b| std::str::from_utf8(b).ok())
        })
    }

    /// The keys of the shapes the document wrote (not the base's, nor
    /// packed shapes: their keys are a map's own).
    fn own_shapes(&self) -> Vec<Vec<String>> {
        let from = self.bound.map_or(0, |b| b.shapes);
        self.shapes[from..]
            .iter()
            .filter(|s| !s.packed)
            .map(|s| {
                self.shape_keys[s.keys..s.keys + s.len]
                    .iter()
                    .map(|k| {
                        let b = self.out.get(k.data..k.data + k.len).unwrap_or(&[]);
                        String::from_utf8_lossy(b).into_owned()
                    })
                    .collect()
            })
            .collect()
    }

    /// An encoder holding an empty base: the header of a version 2 document.
    pub(crate) fn dictionary_base() -> Encoder {
        let mut e = Encoder::new();
        e.out.clear();
        e.out.extend_from_slice(&BASE_HEADER);
        e
    }

    /// Writes the records of entry `e` to the base (section 23.3): a
    /// string's record, or a shape's key records and shape record, each
    /// string once.
    pub(crate) fn write_dictionary_entry(&mut self, e: &Entry) {
        match e {
            Entry::Str(s) => {
                self.strings.intern(&mut self.out, s.as_bytes());
            }
            Entry::Shape(keys) => {
                let keys_start = self.keys.len();
                let mut hash = 0;
                for k in keys {
                    let record = if k.is_empty() {
                        EMPTY_KEY
                    } else {
                        self.strings.intern(&mut self.out, k.as_bytes())
                    };
                    hash = shape_hash_step(hash, record);
                    self.keys.push(record);
                }
                let values = self.slots.len();
                // An entry's keys are distinct (section 23.1).
                self.shape_of(keys_start, values, hash, false);
                self.keys.truncate(keys_start);
            }
        }
    }

    /// The bytes written so far.
    pub(crate) fn written(&self) -> &[u8] {
        &self.out
    }

    /// The finished document of a bound encoder: its base replaced by the
    /// header and the binding (its records keep their offsets, counted
    /// from the start of the base).
    pub(super) fn unbase(&mut self) {
        if let Some(b) = self.bound {
            let (head, n) = self.head(&b);
            self.out.splice(..b.base_len, head[..n].iter().copied());
            self.bound = None;
        }
    }

    /// Length of the header, or of the base of a bound encoder: the
    /// output of an encoder that has written nothing yet.
    pub(super) fn start_len(&self) -> usize {
        self.bound.map_or(HEADER_LEN, |b| b.base_len)
    }
}
