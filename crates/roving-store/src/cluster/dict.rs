//! The store-wide dictionary of a [`ClusterStore`]
//! (`docs/FORMAT.md` section 23): the strings and shapes its records refer
//! to instead of carrying them, kept in the cluster beside the records.
//!
//! It is one Redis list, [`dict_key`] (the prefix, then a NUL byte: no
//! record key can begin with NUL, so iteration and `len` never meet it).
//! Each element is a *row*: the number of entries the dictionary has with
//! that row (20 ASCII digits), then [`Dictionary::delta_since`] of the
//! previous row's number. So:
//!
//! - **Append-only, atomic.** A writer appends a row with one Lua script,
//!   [`APPEND_SCRIPT`], which appends it only if the last row ends where
//!   the writer's row starts (a compare-and-append on one key, so one
//!   slot, so one script run on one master). Entry `n` never changes.
//! - **Before the records.** `flush` appends the row, waits for a replica
//!   to acknowledge it (`WAIT`), and only then writes the records that
//!   refer to its entries: an acknowledged record never outlives them.
//! - **Concurrent writers.** A writer whose append finds the list grown by
//!   another client reads the new rows, writes its pending records that
//!   used its own new entries again against the merged dictionary, and
//!   appends again.
//! - **Cached.** Each client keeps the entries and the number of rows it
//!   has read; a record that names entries past them makes it read the
//!   rows it lacks (`LRANGE` from that number) before decoding it.

use std::sync::Arc;

use redis::Value;
use roving::{Dictionary, Document};

use super::{ClusterStore, Op, Verb};
use crate::error::{Result, StoreError, StoreErrorKind};

/// Digits of a row's entry count.
const COUNT_DIGITS: usize = 20;

/// Appends `ARGV[2]` (a row) to the list `KEYS[1]` if its last row ends
/// at `ARGV[1]` entries (0 for an empty list). Returns `{1, rows}` when
/// it appended, `{0, rows}` otherwise (`rows`: the list's length).
pub(super) const APPEND_SCRIPT: &str = "\
local last = redis.call('LINDEX', KEYS[1], -1)
local n = 0
if last then n = tonumber(string.sub(last, 1, 20)) end
if n ~= tonumber(ARGV[1]) then return {0, redis.call('LLEN', KEYS[1])} end
return {1, redis.call('RPUSH', KEYS[1], ARGV[2])}";

/// The Redis key of the store-wide dictionary of the store with `prefix`.
pub(super) fn dict_key(prefix: &[u8]) -> Vec<u8> {
    let mut k = prefix.to_vec();
    k.extend_from_slice(b"\0dict");
    k
}

/// The row that adds the entries of `dict` past `base`.
pub(super) fn row(dict: &Dictionary, base: usize) -> Vec<u8> {
    let mut r = format!("{:0width$}", dict.len(), width = COUNT_DIGITS).into_bytes();
    r.extend_from_slice(&dict.delta_since(base));
    r
}

#[cold]
fn damaged(msg: impl std::fmt::Display) -> StoreError {
    StoreError::new(
        StoreErrorKind::Corrupt,
        format!("the store is damaged: its dictionary {msg}"),
    )
}

/// What a client has read of the dictionary: its entries (a prefix of the
/// cluster's dictionary) and the number of rows they came from.
#[derive(Clone, Default)]
pub(super) struct Cache {
    pub(super) dict: Arc<Dictionary>,
    pub(super) rows: usize,
}

impl Cache {
    /// Adds `rows`, the list's rows from number [`Cache::rows`] on.
    pub(super) fn extend(&mut self, rows: Vec<Vec<u8>>) -> Result<()> {
        for r in rows {
            let (count, delta) = match r.get(..COUNT_DIGITS).map(std::str::from_utf8) {
                Some(Ok(c)) => (c.parse::<usize>().ok(), &r[COUNT_DIGITS..]),
                _ => (None, &r[..0]),
            };
            let count = count.ok_or_else(|| damaged(format!("row {} is malformed", self.rows)))?;
            let d = Arc::make_mut(&mut self.dict);
            d.extend_from_delta(delta)
                .map_err(|e| damaged(format!("row {} is bad: {e}", self.rows)))?;
            if d.len() != count {
                return Err(damaged(format!(
                    "row {} says {count} entries, it makes {}",
                    self.rows,
                    d.len()
                )));
            }
            self.rows += 1;
        }
        Ok(())
    }
}

/// How many times `flush` appends again after another client grew the
/// dictionary first (each time it merges their entries).
const APPEND_TRIES: usize = 16;

impl ClusterStore {
    /// The store's dictionary (`docs/FORMAT.md` section 23) as this client
    /// writes against it: the entries it read from the cluster, then those
    /// its pending records added. Write a record against it with
    /// [`Encoder::with_dictionary`](roving::Encoder::with_dictionary) (or
    /// `use_dictionary`), then [`grow_dictionary`](ClusterStore::grow_dictionary)
    /// and a put.
    pub fn dictionary(&self) -> &Dictionary {
        &self.ours
    }

    /// Adds the shapes the document `enc` wrote itself to the store's
    /// dictionary: the next flush appends them to the cluster's before
    /// writing the records. Does nothing with
    /// [`ClusterOptions::dictionary`](super::ClusterOptions::dictionary)
    /// false, or once the dictionary's base reaches
    /// [`AUTO_GROWTH_MAX_BASE`](roving::dictionary::AUTO_GROWTH_MAX_BASE)
    /// bytes (later shapes stay in their records).
    pub fn grow_dictionary(&mut self, enc: &roving::Encoder) {
        if self.opts.dictionary && self.ours.base_len() < roving::dictionary::AUTO_GROWTH_MAX_BASE {
            enc.grow_dictionary(Arc::make_mut(&mut self.ours));
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the rows of the cluster's dictionary this client lacks.
    pub(super) fn load_dictionary(&self) -> Result<()> {
        let mut cache = self.cache();
        self.load_rows(&mut cache)
    }

    fn load_rows(&self, cache: &mut Cache) -> Result<()> {
        let mut op = Op::new(Verb::Rows, dict_key(&self.prefix), &[]);
        op.n = cache.rows;
        let answer = self.run(&[op], false)?.pop();
        let rows = match answer {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::BulkString(b) => Ok(b),
                    _ => Err(damaged("has a row that is not a string")),
                })
                .collect::<Result<Vec<_>>>(),
            Some(Value::Nil) => Ok(Vec::new()),
            other => Err(damaged(format_args!("key is not a list: {other:?}"))),
        };
        rows.and_then(|r| cache.extend(r)).map_err(|e| self.err(e))
    }

    /// The cached dictionary, read up to `n` entries first if it has fewer.
    pub(super) fn dictionary_with(&self, n: usize) -> Result<Arc<Dictionary>> {
        let mut cache = self.cache();
        if cache.dict.len() < n {
            self.load_rows(&mut cache)?;
        }
        Ok(cache.dict.clone())
    }

    /// The plain document that `bytes`, record `key` written against `d`
    /// (or a prefix of it), reads as, validated.
    pub(super) fn resolve(&self, key: &str, bytes: &[u8], d: &Dictionary) -> Result<Arc<[u8]>> {
        let mut scratch = Vec::new();
        let plain = roving::dictionary::resolve(bytes, d, &mut scratch)
            .map_err(|e| self.err(crate::dict::missing(key, &e)))?;
        match Document::open(plain) {
            Ok(_) => Ok(Arc::from(plain)),
            Err(e) => Err(self.err(
                StoreError::new(
                    StoreErrorKind::Corrupt,
                    format!("the record {key:?} is not a valid roving document: {e}"),
                )
                .with_source(e),
            )),
        }
    }

    /// Writes against the cached dictionary from now on, if this client
    /// added no entry of its own (after a flush, a reload, an open).
    pub(super) fn adopt_dictionary(&mut self) {
        if self.ours.len() == self.base {
            let d = self.cache().dict.clone();
            if d.len() > self.base {
                self.base = d.len();
                self.ours = d;
            }
        }
    }

    /// Forgets the entries this client added (no pending record uses them
    /// any more).
    pub(super) fn drop_own_entries(&mut self) {
        if self.ours.len() > self.base {
            let d = self.cache().dict.clone();
            self.base = d.len();
            self.ours = d;
        }
    }

    /// Appends the entries this client added to the cluster's dictionary,
    /// acknowledged by the replicas `flush` waits for. If another client
    /// appended first, merges: its entries come first, and the pending
    /// records that used this client's own entries are written again
    /// against the merged dictionary.
    pub(super) fn commit_dictionary(&mut self) -> Result<()> {
        for _ in 0..APPEND_TRIES {
            if self.ours.len() <= self.base {
                return Ok(());
            }
            let row = row(&self.ours, self.base);
            let mut op = Op::new(Verb::Append, dict_key(&self.prefix), &row);
            op.n = self.base;
            let answer = self.run(&[op], true)?.pop();
            let (appended, rows) = match &answer {
                Some(Value::Array(a)) => match (a.first(), a.get(1)) {
                    (Some(Value::Int(ok)), Some(Value::Int(rows))) => {
                        (*ok == 1, usize::try_from(*rows).unwrap_or(0))
                    }
                    _ => (false, 0),
                },
                _ => {
                    return Err(self.err(damaged(format_args!("append script answered {answer:?}"))))
                }
            };
            let mut cache = self.cache();
            if appended && cache.dict.len() == self.base && cache.rows + 1 == rows {
                cache.dict = self.ours.clone();
                cache.rows = rows;
                drop(cache);
                self.base = self.ours.len();
                return Ok(());
            }
            // Another client appended first (or this append was sent
            // again after its answer was lost): read the rows.
            self.load_rows(&mut cache)?;
            let theirs = cache.dict.clone();
            drop(cache);
            if theirs.len() >= self.ours.len()
                && theirs.id_at(self.ours.len()) == Some(self.ours.id())
            {
                // Our entries are there, as ours.
                self.base = theirs.len();
                self.ours = theirs;
                return Ok(());
            }
            let mut merged = crate::dict::merged(&theirs, &self.ours, self.base);
            // All or nothing: on error the records stay as they were.
            for (key, again) in self.rewrite_own(&mut merged)? {
                self.pending.insert(key, Some(again));
            }
            self.base = theirs.len();
            self.ours = Arc::new(merged);
        }
        Err(self.err(StoreError::new(
            StoreErrorKind::Cluster,
            format!(
                "other clients kept growing the store's dictionary: {APPEND_TRIES} appends \
                 failed; flush again"
            ),
        )))
    }

    /// Each pending record that uses entries this client added (past
    /// `base`), written again against `merged`, which grows by its shapes.
    fn rewrite_own(&self, merged: &mut Dictionary) -> Result<Vec<(String, Arc<[u8]>)>> {
        let mut out = Vec::new();
        for (key, v) in &self.pending {
            let Some(buf) = v else { continue };
            if crate::dict::needs(buf) <= self.base {
                continue;
            }
            let again = crate::dict::transcode(buf, &self.ours, merged).map_err(|e| {
                self.err(StoreError::new(
                    StoreErrorKind::Corrupt,
                    format!(
                        "the record {key:?} could not be written again against the \
                         merged dictionary: {e}"
                    ),
                ))
            })?;
            out.push((key.clone(), Arc::from(again)));
        }
        Ok(out)
    }
}
