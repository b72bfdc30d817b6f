//! Maps whose keys are all given when they open: their key list written as
//! one packed shape record (`docs/FORMAT.md` section 6.18), the keys' bytes
//! back to back with a dense hash index (none when they are in order, which
//! is flagged), instead of a string record per key
//! and a shape of references to them. For the maps that no other map
//! shares keys with: a dict keyed by ids, a big lookup table.

use super::containers::{Frame, MAP_PACKED, NO_GUESS, NO_KEYS};
use super::shapes::{absolute_from, ShapeInfo, KEYS_END};
use super::{depth_error, Encoder};
use crate::error::{Error, ErrorKind, Result};
use crate::layout::*;

impl Encoder {
    /// Starts a map whose keys are `keys`, in order: write its values
    /// next, one per key and with no [`Encoder::key`] calls, then
    /// [`Encoder::end_map`]. The keys are written at once as one packed
    /// shape (format version 2): their bytes back to back and a hash index
    /// (none for keys in increasing order, found by binary search), about
    /// 1.3 bytes per key besides the key's own (a shape of string
    /// records costs 3 to 6). No other map shares that shape, so it suits
    /// maps whose keys do not recur as a whole: a dict keyed by ids, a
    /// lookup table; a map of recurring keys (a record) is better written
    /// with [`Encoder::begin_map`]. Fails if two keys are equal.
    ///
    /// ```
    /// let mut e = roving::Encoder::new();
    /// e.begin_map_with_keys(&["17", "42"])?;
    /// e.i64(1)?;
    /// e.str("two")?;
    /// e.end_map()?;
    /// let bytes = e.finish()?;
    /// let doc = roving::Document::open(&bytes)?;
    /// let map = doc.root().as_map().unwrap();
    /// assert_eq!(map.get("42").and_then(|v| v.as_str()), Some("two"));
    /// assert_eq!(map.keys().collect::<Vec<_>>(), ["17", "42"]);
    /// # Ok::<(), roving::Error>(())
    /// ```
    pub fn begin_map_with_keys(&mut self, keys: &[&str]) -> Result<()> {
        if self.frames.len() >= self.max_depth {
            return Err(depth_error(self.max_depth));
        }
        self.check_value_expected()?;
        let pos = self.out.len();
        if let Err(e) = write_packed_shape(&mut self.out, keys) {
            self.out.truncate(pos);
            return Err(e);
        }
        self.require_version(VERSION_2);
        let shape = self.shapes.len() as u32;
        self.shapes.push(ShapeInfo {
            keys: self.shape_keys.len(),
            len: keys.len(),
            pos,
            absolute_from: absolute_from(pos),
            width: 0,
            packed: true,
        });
        // No keys of its own: a guess of this shape matches none.
        self.shape_keys.push(KEYS_END);
        let inner = Frame {
            state: MAP_PACKED,
            slots_start: self.slots.len(),
            keys_start: self.keys.len(),
            shape_hash: 0,
            maybe_dup: false,
            guess: shape,
            matched: 0,
            guess_keys: NO_KEYS,
            guess_len: keys.len() as u32,
            out_start: self.out.len(),
        };
        debug_assert_ne!(shape, NO_GUESS);
        let outer = std::mem::replace(&mut self.top, inner);
        self.frames.push(outer);
        Ok(())
    }
}

/// Appends the packed shape record of `keys` to `out`; fails (having
/// written part of it) if two keys are equal or there are too many.
fn write_packed_shape(out: &mut Vec<u8>, keys: &[&str]) -> Result<()> {
    let n = keys.len();
    if n > u32::MAX as usize - 1 {
        return Err(Error::new(ErrorKind::BadLength).with_message("a map of 2^32 - 1 keys or more"));
    }
    let lens: Vec<usize> = keys.iter().map(|k| k.len()).collect();
    let data_len: usize = lens.iter().sum();
    // Keys in order need no index: they are found by binary search.
    let order = if n > SHAPE_LINEAR_MAX {
        ordered(keys)
    } else {
        0
    };
    let t = if n > SHAPE_LINEAR_MAX && order == 0 {
        dense_table_size(n)
    } else {
        0
    };
    let ew = index_entry_width(n);
    out.reserve(str_array_size(&lens, data_len) + t * ew);
    write_packed_head(out, TAG_PACKED_SHAPE, &lens, data_len, order);
    for k in keys {
        out.extend_from_slice(k.as_bytes());
    }
    if order != 0 {
        // Strictly increasing: distinct.
        return Ok(());
    }
    let duplicate = |i: usize| {
        Error::new(ErrorKind::DuplicateKey).with_message(format!("the key {:?} twice", keys[i]))
    };
    if n <= SHAPE_LINEAR_MAX {
        for i in 1..n {
            if keys[..i].contains(&keys[i]) {
                return Err(duplicate(i));
            }
        }
        return Ok(());
    }
    let hashes: Vec<u64> = keys.iter().map(|k| key_hash(k.as_bytes())).collect();
    let index = out.len();
    out.resize(index + t * ew, 0);
    let table = &mut out[index..];
    let filled = match ew {
        1 => fill_dense_index::<1>(table, keys, &hashes),
        2 => fill_dense_index::<2>(table, keys, &hashes),
        _ => fill_dense_index::<4>(table, keys, &hashes),
    };
    filled.map_err(duplicate)
}

/// The key order bit of `keys` if they are strictly increasing by length
/// then bytes ([`KEYS_BY_LENGTH`]: ids counted up as text), else by bytes
/// ([`KEYS_BY_BYTES`]: sorted names); 0 if neither.
fn ordered(keys: &[&str]) -> u8 {
    let increasing = |order: u8| {
        keys.windows(2)
            .all(|w| key_order(order, w[0].as_bytes(), w[1].as_bytes()).is_lt())
    };
    if increasing(KEYS_BY_LENGTH) {
        KEYS_BY_LENGTH
    } else if increasing(KEYS_BY_BYTES) {
        KEYS_BY_BYTES
    } else {
        0
    }
}

/// Places each key in `table`, a dense index (section 6.18) of `E`-byte
/// entries, all 0, at the first empty entry from its home (`hashes`: the
/// keys' key hashes); `Err(k)` if key `k` equals an earlier key.
fn fill_dense_index<const E: usize>(
    table: &mut [u8],
    keys: &[&str],
    hashes: &[u64],
) -> std::result::Result<(), usize> {
    let t = table.len() / E;
    for (k, &h) in hashes.iter().enumerate() {
        let mut i = dense_home(h, t);
        loop {
            let e = index_entry::<E>(table, i);
            if e == 0 {
                table[i * E..i * E + E].copy_from_slice(&((k + 1) as u32).to_le_bytes()[..E]);
                break;
            }
            if hashes[e - 1] == h && keys[e - 1] == keys[k] {
                return Err(k);
            }
            i += 1;
            if i == t {
                i = 0;
            }
        }
    }
    Ok(())
}
