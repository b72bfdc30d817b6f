//! How a dictionary that grows by itself (a Store's) learns from the
//! documents written against it: every shape a document writes itself,
//! and the value strings that recur across documents.

use hashbrown::HashMap;

use super::{Dictionary, AUTO_GROWTH_MAX_BASE};
use crate::encode::Encoder;

/// Shortest value string learnt, in bytes: a shorter one saves less than
/// the reference to it costs to find.
pub const LEARN_MIN_LEN: usize = 4;

/// Longest value string learnt, in bytes.
pub const LEARN_MAX_LEN: usize = 96;

/// A value string is learnt once this many documents have written it.
pub const LEARN_AFTER: u32 = 3;

/// Strings are learnt while the base is shorter than this: they may take
/// half of [`AUTO_GROWTH_MAX_BASE`], and shapes the rest (a store of
/// recurring values keeps room for its later kinds of record).
pub const LEARN_MAX_BASE: usize = AUTO_GROWTH_MAX_BASE / 2;

/// Candidate strings counted at once; past that, the counts start over
/// (a store of ever new values keeps a bounded table).
const MAX_CANDIDATES: usize = 4096;

/// Grows a dictionary from the documents written against it, as a
/// [`Store`](https://docs.rs/roving-store) does: after each document,
/// [`learn`](Learner::learn) adds the shapes the document wrote itself
/// ([`Encoder::grow_dictionary`]) and every value string of
/// [`LEARN_MIN_LEN`]..=[`LEARN_MAX_LEN`] bytes that [`LEARN_AFTER`]
/// documents have now written (a status, a type name, a hash that many
/// records repeat), so that later documents refer to them instead of
/// carrying them. (Strings of a list stored as a string array record are
/// not counted: that record holds its strings' bytes itself.) The base
/// stops growing at [`AUTO_GROWTH_MAX_BASE`] bytes, and strings at
/// [`LEARN_MAX_BASE`].
///
/// ```
/// use roving::dictionary::{Dictionary, Learner};
/// let mut dict = Dictionary::new();
/// let mut learner = Learner::new();
/// let mut sizes = Vec::new();
/// for i in 0..5 {
///     let mut enc = roving::Encoder::with_dictionary(&dict);
///     enc.begin_map()?;
///     enc.key("id")?;
///     enc.i64(i)?;
///     enc.key("state")?;
///     enc.str("delivered")?;
///     enc.end_map()?;
///     learner.learn(&enc, &mut dict);
///     sizes.push(enc.finish()?.len());
/// }
/// // The shape is learnt from the first document, "delivered" from the third.
/// assert_eq!(dict.len(), 2);
/// assert!(sizes[4] < sizes[2] && sizes[2] < sizes[0]);
/// # Ok::<(), roving::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Learner {
    /// For each candidate string: the documents that wrote it so far, and
    /// the number of the last one (a document counts once, however many
    /// records it wrote of the string).
    counts: HashMap<Box<str>, (u32, u64)>,
    /// Documents learnt from.
    docs: u64,
}

impl Learner {
    /// A learner that has seen no document.
    pub fn new() -> Learner {
        Learner::default()
    }

    /// Learns from the document `enc` wrote (before it is finished)
    /// against `dict`: adds its own shapes, and the value strings that
    /// have now recurred often enough, to `dict`. Does nothing to a
    /// frozen dictionary or one whose base is full.
    pub fn learn(&mut self, enc: &Encoder, dict: &mut Dictionary) {
        if dict.is_frozen() || dict.base_len() >= AUTO_GROWTH_MAX_BASE {
            return;
        }
        enc.grow_dictionary(dict);
        self.learn_strings(enc, dict);
    }

    /// The value strings part of [`learn`](Self::learn) alone: adds to
    /// `dict` (unless frozen) the value strings of the document `enc`
    /// wrote that have now recurred often enough, while its base is
    /// shorter than [`LEARN_MAX_BASE`], whatever else it learns (a user's
    /// dictionary, which learns every shape, has no size limit).
    pub fn learn_strings(&mut self, enc: &Encoder, dict: &mut Dictionary) {
        if dict.is_frozen() || dict.base_len() >= LEARN_MAX_BASE {
            return;
        }
        self.docs += 1;
        let doc = self.docs;
        for s in enc.own_value_strings() {
            if !(LEARN_MIN_LEN..=LEARN_MAX_LEN).contains(&s.len())
                || dict.base_len() + s.len() + 2 > LEARN_MAX_BASE
            {
                continue;
            }
            if let Some((n, last)) = self.counts.get_mut(s) {
                if *last == doc {
                    continue;
                }
                (*n, *last) = (*n + 1, doc);
                if *n >= LEARN_AFTER {
                    self.counts.remove(s);
                    // A string of a document is a valid entry.
                    let _ = dict.add_string(s);
                }
                continue;
            }
            if self.counts.len() >= MAX_CANDIDATES {
                self.counts.clear();
            }
            self.counts.insert(s.into(), (1, doc));
        }
    }
}
