//! Map shapes: the key lists that maps share, found again by their key
//! records or written once (with their index table when they are long).

use hashbrown::HashMap;

use super::containers::Frame;
use super::pending::Pending;
use super::strings::{prefetch, str_header_len};
use super::value_sharing::Sharing;
use super::widths::{encode_reference, width_of_reference};
use super::Encoder;
use crate::layout::*;

/// Key position used for the empty-string key (which has no record).
pub(super) const EMPTY_KEY: usize = usize::MAX;

/// The entry of `Encoder::shape_keys` after each shape's keys: its length
/// and address match no key (and its record no key's record).
pub(super) const KEYS_END: ShapeKey = ShapeKey {
    record: usize::MAX - 1,
    data: 0,
    len: usize::MAX,
    addr: 0,
    sharing: Sharing::NEW,
};

/// A key of a shape: its string record and where its bytes are.
#[derive(Clone, Copy, Debug)]
pub(super) struct ShapeKey {
    /// Position of the string record ([`EMPTY_KEY`] for `""`).
    pub(super) record: usize,
    /// Position of the key's bytes (0 for `""`).
    pub(super) data: usize,
    /// Length of the key.
    pub(super) len: usize,
    /// Address of a `&'static str` with these bytes (0: none known), set
    /// and read only by [`Encoder::key_static`]: a static string never
    /// changes, so the same address and length are the same bytes.
    pub(super) addr: usize,
    /// Whether the key's values are looked up in the string table.
    pub(super) sharing: Sharing,
}

/// A shape written to the document.
#[derive(Clone, Copy, Debug)]
pub(super) struct ShapeInfo {
    /// Its keys are `Encoder::shape_keys[keys..keys + len]`.
    pub(super) keys: usize,
    /// Number of keys.
    pub(super) len: usize,
    /// Position of the shape record.
    pub(super) pos: usize,
    /// A map's relative shape reference at least this large is longer
    /// than the absolute one (see [`shape_ref`]).
    pub(super) absolute_from: u64,
    /// Slot width of the last map of this shape (0: none yet, or it
    /// needed integer records), the guess for the next one (see
    /// [`Encoder::write_record_as`]).
    pub(super) width: usize,
    /// A packed shape ([`Encoder::begin_map_with_keys`]): its keys are
    /// not in `Encoder::shape_keys`, no map shares it, and it is not a
    /// dictionary entry.
    pub(super) packed: bool,
}

/// One step of the running hash of a map's key records.
#[inline]
pub(super) fn shape_hash_step(h: u64, key: usize) -> u64 {
    (h ^ key as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(26)
}

impl Encoder {
    /// Finds or writes the shape of the map of `frame` (just ended), whose
    /// keys are `keys[frame.keys_start..]`, first merging duplicate keys
    /// (first position, last value). Returns its index in `shapes`.
    pub(super) fn shape(&mut self, frame: &Frame) -> u32 {
        let (mut hash, mut maybe_dup) = (frame.shape_hash, frame.maybe_dup);
        // Once the string table has turned over, a key's record may come
        // from the table or from a record kept since (a predicted shape's
        // keys, the key cache, a `KeyId`), and the two may differ for
        // equal bytes. (A map that matched its predicted shape in full
        // does not come here: a shape's keys are distinct.)
        if self.strings.turns() > 0 && self.same_bytes_same_record(frame.keys_start) {
            hash = self.keys[frame.keys_start..]
                .iter()
                .fold(0u64, |h, &k| shape_hash_step(h, k));
            maybe_dup = true;
        }
        self.shape_of(frame.keys_start, frame.slots_start, hash, maybe_dup)
    }

    /// After the string table turned over, two keys of a map may be equal
    /// strings with two records (see
    /// [`StringTable`](super::strings::StringTable)): gives each key of
    /// `keys[keys_start..]` the first record among them with the same
    /// bytes, so that [`Self::dedup_keys`] finds duplicates by record.
    /// Returns whether it changed any.
    #[inline(never)]
    fn same_bytes_same_record(&mut self, keys_start: usize) -> bool {
        let out = &self.out;
        let keys = &mut self.keys[keys_start..];
        // The empty key has no record and one identity (`EMPTY_KEY`).
        let bytes = |k: usize| {
            (k != EMPTY_KEY)
                .then(|| crate::layout::str_record(out, k))
                .flatten()
        };
        let mut changed = false;
        if keys.len() <= 16 {
            for i in 1..keys.len() {
                let Some(b) = bytes(keys[i]) else { continue };
                if let Some(j) = (0..i).find(|&j| keys[j] != keys[i] && bytes(keys[j]) == Some(b)) {
                    keys[i] = keys[j];
                    changed = true;
                }
            }
            return changed;
        }
        let mut first: HashMap<&[u8], usize> = HashMap::with_capacity(keys.len());
        for k in keys.iter_mut() {
            let Some(b) = bytes(*k) else { continue };
            let r = *first.entry(b).or_insert(*k);
            changed |= r != *k;
            *k = r;
        }
        changed
    }

    /// [`shape`](Self::shape) of the keys `keys[keys_start..]` (`hash`
    /// their running hash), whose values start at `slots[slots_start]`;
    /// `maybe_dup` is false when no two keys can be the same (every key
    /// was new to the document when pushed, or they are a dictionary
    /// entry's distinct keys).
    pub(super) fn shape_of(
        &mut self,
        keys_start: usize,
        slots_start: usize,
        mut hash: u64,
        maybe_dup: bool,
    ) -> u32 {
        if let Some(i) = self.find_shape(keys_start, hash) {
            return i;
        }
        if maybe_dup && self.dedup_keys(keys_start, slots_start) {
            hash = self.keys[keys_start..]
                .iter()
                .fold(0u64, |h, &k| shape_hash_step(h, k));
            if let Some(i) = self.find_shape(keys_start, hash) {
                return i;
            }
        }
        let keys_at = self.shape_keys.len();
        for &k in &self.keys[keys_start..] {
            self.shape_keys.push(key_ref(&self.out, k));
        }
        let keys = &self.shape_keys[keys_at..];
        let n = keys.len();
        // Width of the key slots.
        let here = self.out.len();
        let width = keys
            .iter()
            .filter(|k| k.record != EMPTY_KEY)
            .map(|k| width_of_reference(k.record, here))
            .max()
            .unwrap_or(1);
        let pos = here;
        self.out.push(TAG_SHAPE | width_code(width));
        write_varint(&mut self.out, n as u64);
        for k in keys {
            let raw = if k.record == EMPTY_KEY {
                (SPECIAL_EMPTY_STR << 2) | SLOT_SPECIAL
            } else {
                encode_reference(k.record, pos, width)
            };
            self.out.extend_from_slice(&raw.to_le_bytes()[..width]);
        }
        if n > SHAPE_LINEAR_MAX {
            // The index, built where it is written (zeroed entries of its
            // width, probed in place).
            let t = index_table_size(n);
            let e = index_entry_width(n);
            let at = self.out.len();
            self.out.resize(at + t * e, 0);
            let (doc, table) = self.out.split_at_mut(at);
            match e {
                1 => fill_index::<1>(table, doc, keys),
                2 => fill_index::<2>(table, doc, keys),
                _ => fill_index::<4>(table, doc, keys),
            }
        }
        self.shape_keys.push(KEYS_END);
        let index = self.shapes.len() as u32;
        self.shapes.push(ShapeInfo {
            packed: false,
            keys: keys_at,
            len: n,
            pos,
            absolute_from: absolute_from(pos),
            width: 0,
        });
        self.shape_index.insert_unique(hash, (hash, index), |e| e.0);
        index
    }

    /// The index of the shape whose keys are `keys[keys_start..]`, if written.
    fn find_shape(&self, keys_start: usize, hash: u64) -> Option<u32> {
        let keys = &self.keys[keys_start..];
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
    fn dedup_keys(&mut self, keys_start: usize, values_start: usize) -> bool {
        let n = self.keys.len() - keys_start;
        let has_dup = if n <= 16 {
            let k = &self.keys[keys_start..];
            (1..n).any(|i| k[..i].contains(&k[i]))
        } else {
            let mut seen = hashbrown::HashSet::with_capacity(n);
            self.keys[keys_start..].iter().any(|k| !seen.insert(*k))
        };
        if !has_dup {
            return false;
        }
        let mut first: HashMap<usize, usize> = HashMap::new();
        let mut keys = Vec::new();
        let mut vals: Vec<Pending> = Vec::new();
        for i in 0..n {
            let k = self.keys[keys_start + i];
            let v = self.slots[values_start + i];
            match first.get(&k) {
                Some(&j) => vals[j] = v,
                None => {
                    first.insert(k, keys.len());
                    keys.push(k);
                    vals.push(v);
                }
            }
        }
        self.keys.truncate(keys_start);
        self.keys.extend(keys);
        self.slots.truncate(values_start);
        self.slots.extend(vals);
        true
    }
}

/// Fills a shape's hash index `table` (zeroed entries of `E` bytes, a
/// power of two of them, more than `keys`) for `keys`, whose bytes are in
/// `doc`: key `i` is entry value `i + 1`, at the first empty entry from
/// its home (FORMAT.md section 8.3).
fn fill_index<const E: usize>(table: &mut [u8], doc: &[u8], keys: &[ShapeKey]) {
    /// How many keys ahead a key's home entry starts loading.
    const AHEAD: usize = 8;
    let t = table.len() / E;
    let mask = t - 1;
    let home =
        |k: &ShapeKey| index_home(key_hash(doc.get(k.data..k.data + k.len).unwrap_or(&[])), t);
    // The homes of the next `AHEAD` keys, by key index modulo `AHEAD`.
    let mut ahead = [0usize; AHEAD];
    for (a, k) in ahead.iter_mut().zip(keys) {
        *a = home(k);
    }
    for i in 0..keys.len() {
        let mut h = ahead[i % AHEAD];
        if let Some(k) = keys.get(i + AHEAD) {
            let a = home(k);
            ahead[i % AHEAD] = a;
            if let Some(entry) = table.get(a * E) {
                prefetch(entry);
            }
        }
        loop {
            let Some(entry) = table.get_mut(h * E..h * E + E) else {
                return; // unreachable: `h` is masked to the table
            };
            if entry.iter().all(|&b| b == 0) {
                entry.copy_from_slice(&(i as u64 + 1).to_le_bytes()[..E]);
                break;
            }
            h = (h + 1) & mask;
        }
    }
}

/// Where the bytes of the key record at `record` are (written by the
/// string table: a short string or a `0C` record).
fn key_ref(out: &[u8], record: usize) -> ShapeKey {
    if record == EMPTY_KEY {
        return ShapeKey {
            record,
            data: 0,
            len: 0,
            addr: 0,
            sharing: Sharing::NEW,
        };
    }
    let len = crate::layout::str_record(out, record).map_or(0, <[u8]>::len);
    let data = record + str_header_len(len);
    ShapeKey {
        record,
        data,
        len,
        addr: 0,
        sharing: Sharing::NEW,
    }
}

/// [`ShapeInfo::absolute_from`] of a shape at `shape`: the absolute reference
/// `(shape << 1) | 1` takes `L` varint bytes, so it is the shorter one
/// exactly when the relative one needs more, i.e. is at least `2^(7L)`.
pub(super) fn absolute_from(shape: usize) -> u64 {
    let len = varint_len(((shape as u64) << 1) | 1);
    1u64.checked_shl(7 * len as u32).unwrap_or(u64::MAX)
}

/// The shape reference of a map at `pos`: a varint of `distance << 1`, or
/// of `(shape << 1) | 1` (absolute) when that is shorter.
#[inline]
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(super) fn shape_ref(shape: usize, pos: usize) -> u64 {
    let rel = ((pos - shape) as u64) << 1;
    let abs = ((shape as u64) << 1) | 1;
    if varint_len(abs) < varint_len(rel) {
        abs
    } else {
        rel
    }
}
