//! The store-wide dictionary (`docs/FORMAT.md` section 23): strings and
//! map shapes that the store's records refer to instead of carrying them.
//!
//! It lives in the metadata database, beside the format marker:
//!
//! * `dict.row/` + the big-endian u64 entry number a row starts at:
//!   [`Dictionary::delta_since`] of that number (the entries added by one
//!   commit);
//! * `dict.len`: the number of entries (big-endian u64), and `dict.id`:
//!   the dictionary's id (`id_at(len)`, big-endian u64).
//!
//! A commit that writes records bound to new entries writes their row in
//! the same LMDB write transaction, so a record never outlives its
//! entries. A store without a `dict.len` has no dictionary (every store
//! written before it existed): it reads as before.

use std::ops::Bound;
use std::sync::Arc;

use heed::types::Bytes;
use heed::{Database, RoTxn, RwTxn};
use roving::{Dictionary, Document};

use crate::error::{Result, StoreError, StoreErrorKind};

/// Key of the number of entries.
const LEN_KEY: &[u8] = b"dict.len";
/// Key of the dictionary's id.
const ID_KEY: &[u8] = b"dict.id";
/// Prefix of the rows' keys.
const ROW_PREFIX: &[u8] = b"dict.row/";

type Meta = Database<'static, Bytes, Bytes>;

fn row_key(start: u64) -> Vec<u8> {
    let mut k = ROW_PREFIX.to_vec();
    k.extend_from_slice(&start.to_be_bytes());
    k
}

#[cold]
fn damaged(msg: impl std::fmt::Display) -> StoreError {
    StoreError::new(
        StoreErrorKind::Corrupt,
        format!("the store is damaged: its dictionary {msg}"),
    )
}

/// The number of entries the state read by `txn` holds (0: none).
pub(crate) fn stored_len(meta: &Meta, txn: &RoTxn<'_>) -> Result<usize> {
    match meta.get(txn, LEN_KEY)? {
        None => Ok(0),
        Some(v) => {
            let n = <[u8; 8]>::try_from(v).map_err(|_| damaged("length is malformed"))?;
            usize::try_from(u64::from_be_bytes(n)).map_err(|_| damaged("length is too large"))
        }
    }
}

/// Extends `dict` (a prefix of the stored dictionary: the committed state
/// of an earlier snapshot) to the entries the state read by `txn` holds.
/// Cheap when it has them all already (one lookup).
pub(crate) fn load(meta: &Meta, txn: &RoTxn<'_>, dict: &mut Arc<Dictionary>) -> Result<()> {
    let want = stored_len(meta, txn)?;
    let have = dict.len();
    if want <= have {
        return Ok(());
    }
    let d = Arc::make_mut(dict);
    // The row holding entry `have` starts at or before it; later rows follow.
    let first = row_key(have as u64);
    let start = meta
        .rev_range(
            txn,
            &(
                Bound::Included(row_key(0).as_slice()),
                Bound::Included(first.as_slice()),
            ),
        )?
        .next()
        .transpose()?
        .map(|(k, _)| k.to_vec())
        .ok_or_else(|| damaged(format!("has no row holding entry {have}")))?;
    let rows = meta.range(
        txn,
        &(
            Bound::Included(start.as_slice()),
            Bound::Included(row_key(u64::MAX).as_slice()),
        ),
    )?;
    for row in rows {
        let (_, delta) = row?;
        d.extend_from_delta(delta)
            .map_err(|e| damaged(format!("has a bad row: {e}")))?;
        if d.len() >= want {
            break;
        }
    }
    if d.len() < want {
        return Err(damaged(format!(
            "has {} entries in its rows, its length says {want}",
            d.len()
        )));
    }
    Ok(())
}

/// Writes the entries of `dict` past `base` (the number the state the
/// write transaction began from holds) as a row, and the new length and id.
pub(crate) fn write(
    meta: &Meta,
    wtxn: &mut RwTxn<'_>,
    dict: &Dictionary,
    base: usize,
) -> heed::Result<()> {
    if dict.len() <= base {
        return Ok(());
    }
    meta.put(wtxn, &row_key(base as u64), &dict.delta_since(base))?;
    meta.put(wtxn, LEN_KEY, &(dict.len() as u64).to_be_bytes())?;
    meta.put(wtxn, ID_KEY, &dict.id().to_be_bytes())
}

/// The number of dictionary entries the document `buf` needs (0 for a
/// plain one, or for bytes that are not a bound document).
pub(crate) fn needs(buf: &[u8]) -> usize {
    match roving::layout::read_binding(buf) {
        Ok(Some(b)) => usize::try_from(b.count).unwrap_or(usize::MAX),
        _ => 0,
    }
}

/// The dictionary a writer continues with after another writer's commit
/// grew the store's first: `committed` (the store's, now), then the
/// entries `ours` added past `base` (the number it started from) that
/// `committed` lacks, in their order. Records written against `ours`
/// that use those entries must be written again against it
/// ([`transcode`]).
pub(crate) fn merged(committed: &Dictionary, ours: &Dictionary, base: usize) -> Dictionary {
    let mut merged = committed.clone();
    for entry in ours.entries().get(base..).unwrap_or_default() {
        // Entries of a dictionary are valid entries (and one the merged
        // dictionary has already is returned, not added twice).
        let _ = match entry {
            roving::dictionary::Entry::Str(s) => merged.add_string(s),
            roving::dictionary::Entry::Shape(keys) => merged.add_shape(keys),
        };
    }
    merged
}

/// `buf`, written against `from`, written again against `to` (which
/// grows by the shapes it needs): for a pending record whose entries
/// another process's commit made stale.
pub(crate) fn transcode(
    buf: &[u8],
    from: &Dictionary,
    to: &mut Dictionary,
) -> roving::Result<Vec<u8>> {
    let mut scratch = Vec::new();
    let doc = Document::open_with(buf, from, &mut scratch)?;
    let mut enc = roving::Encoder::with_dictionary(to);
    enc.write_value(doc.root())?;
    enc.finish_growing(to)
}

/// The error of record `key` that needs entries the dictionary lacks.
pub(crate) fn missing(key: &str, e: &roving::Error) -> StoreError {
    StoreError::new(
        StoreErrorKind::Corrupt,
        format!("the store is damaged: record {key:?} needs dictionary entries it lacks: {e}"),
    )
}

/// What a commit writes of the dictionary: the entries of `dict` past
/// `base`, if the store still has `base` entries (else the commit fails
/// with [`WriteFail::DictMoved`](crate::store::WriteFail::DictMoved)).
#[derive(Clone)]
pub(crate) struct DictWrite {
    pub(crate) dict: Arc<Dictionary>,
    pub(crate) base: usize,
}
