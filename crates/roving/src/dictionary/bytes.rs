//! A dictionary's own bytes (`docs/FORMAT.md` section 23.4): a roving
//! document whose root is the map `{"from": n, "base": id_at(n),
//! "entries": [...]}`, a string entry as a string and a shape entry as
//! an array of its keys. The whole dictionary is the delta from entry 0.

use super::{bad, Dictionary, Entry};
use crate::encode::Encoder;
use crate::error::Result;
use crate::read::{Document, Value};

impl Dictionary {
    /// The dictionary as bytes (a roving document; see
    /// [`from_bytes`](Self::from_bytes)). Frozenness is not part of them.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.delta_since(0)
    }

    /// A dictionary from the bytes [`to_bytes`](Self::to_bytes) wrote.
    /// Any bytes give a dictionary or an error ([`ErrorKind::BadDictionary`],
    /// or the document's own validation error), never a panic.
    ///
    /// [`ErrorKind::BadDictionary`]: crate::ErrorKind::BadDictionary
    pub fn from_bytes(bytes: &[u8]) -> Result<Dictionary> {
        let (from, _, entries) = parse(bytes)?;
        if from != 0 {
            return Err(bad(format!(
                "these are the entries from {from} on (a delta), not a whole dictionary"
            )));
        }
        let mut d = Dictionary::new();
        d.extend(0, entries)?;
        Ok(d)
    }

    /// The entries from `n` on, as bytes that
    /// [`extend_from_delta`](Self::extend_from_delta) applies to a
    /// dictionary of at least `n` of the same entries (`n` is clamped to
    /// `len()`). They name `id_at(n)`, so that a dictionary whose first
    /// `n` entries differ refuses them.
    pub fn delta_since(&self, n: usize) -> Vec<u8> {
        let n = n.min(self.len());
        let mut e = Encoder::new();
        let written: Result<Vec<u8>> = (|| {
            e.begin_map()?;
            e.key("from")?;
            e.u64(n as u64)?;
            e.key("base")?;
            e.u64(self.ids[n])?;
            e.key("entries")?;
            e.begin_array()?;
            for entry in &self.entries[n..] {
                match entry {
                    Entry::Str(s) => e.str(s)?,
                    Entry::Shape(keys) => {
                        e.begin_array()?;
                        for k in keys {
                            e.str(k)?;
                        }
                        e.end_array()?;
                    }
                }
            }
            e.end_array()?;
            e.end_map()?;
            e.finish()
        })();
        // Strings, arrays and integers at a depth of 3 always encode.
        written.unwrap_or_default()
    }

    /// Appends the entries of a delta ([`delta_since`](Self::delta_since)
    /// of this dictionary or of a copy that grew further). A delta that
    /// starts at or below `len()` and agrees with the entries it overlaps
    /// is applied (its new entries appended; none if it has none), so
    /// applying one twice is harmless. One that starts past `len()`, names
    /// another `id_at(from)`, or disagrees on an entry is refused
    /// ([`ErrorKind::BadDictionary`]), leaving the dictionary unchanged.
    ///
    /// [`ErrorKind::BadDictionary`]: crate::ErrorKind::BadDictionary
    pub fn extend_from_delta(&mut self, delta: &[u8]) -> Result<()> {
        let (from, base, entries) = parse(delta)?;
        if from > self.len() as u64 {
            return Err(bad(format!(
                "the delta starts at entry {from}, the dictionary has {} entries",
                self.len()
            )));
        }
        if self.ids[from as usize] != base {
            return Err(bad(format!(
                "the delta extends dictionary {base:016x}, not this one ({:016x} at {from} entries)",
                self.ids[from as usize]
            )));
        }
        self.extend(from as usize, entries)
    }

    /// Checks `entries` (entry `from` on) against this dictionary, then
    /// appends those past its end. Nothing changes on an error.
    fn extend(&mut self, from: usize, entries: Vec<Entry>) -> Result<()> {
        let overlap = (self.len() - from).min(entries.len());
        for (i, e) in entries[..overlap].iter().enumerate() {
            if *e != self.entries[from + i] {
                return Err(bad(format!(
                    "entry {} of the delta differs from the dictionary's",
                    from + i
                )));
            }
        }
        let new = &entries[overlap..];
        {
            let mut seen = hashbrown::HashSet::new();
            for (i, e) in new.iter().enumerate() {
                e.check()?;
                if self.index.contains_key(e) || !seen.insert(e) {
                    return Err(bad(format!(
                        "entry {} repeats an earlier entry",
                        from + overlap + i
                    )));
                }
            }
        }
        if !new.is_empty() && self.frozen {
            return Err(bad("the dictionary is frozen"));
        }
        for e in entries.into_iter().skip(overlap) {
            self.push(e);
        }
        Ok(())
    }
}

/// The `from`, `base` and entries of dictionary bytes or of a delta.
fn parse(bytes: &[u8]) -> Result<(u64, u64, Vec<Entry>)> {
    let doc = Document::open(bytes)?;
    let root = doc
        .root()
        .as_map()
        .ok_or_else(|| bad("the root is not a map"))?;
    if root.len() != 3 {
        return Err(bad(
            "the root map does not have exactly the keys from, base, entries",
        ));
    }
    let field = |k: &str| root.get(k).ok_or_else(|| bad(format!("no {k:?} key")));
    let from = field("from")?
        .as_u64()
        .ok_or_else(|| bad("\"from\" is not an unsigned integer"))?;
    let base = field("base")?
        .as_u64()
        .ok_or_else(|| bad("\"base\" is not an unsigned 64-bit integer"))?;
    let list = field("entries")?;
    let list = list
        .as_array()
        .ok_or_else(|| bad("\"entries\" is not an array"))?;
    let mut entries = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        entries.push(entry(v).ok_or_else(|| {
            bad(format!(
                "entry {i} of the list is neither a string nor an array of strings"
            ))
        })?);
    }
    Ok((from, base, entries))
}

/// An entry as the bytes hold it (its own rules are checked on adding).
fn entry(v: Value<'_>) -> Option<Entry> {
    if let Some(s) = v.as_str() {
        return Some(Entry::Str(s.to_owned()));
    }
    let a = v.as_array()?;
    let keys: Option<Vec<String>> = a.iter().map(|k| k.as_str().map(str::to_owned)).collect();
    keys.map(Entry::Shape)
}
