//! The store-wide dictionary of a [`ClusterStore`]
//! (`docs/FORMAT.md` section 23): the strings and shapes its records refer
//! to instead of carrying them, kept in the cluster beside the records.
//!
//! It is one Redis list, [`dict_key`] (the prefix, then a NUL byte: no
//! record key holds a NUL, so iteration and `len` never meet it). Each
//! element is a *row*: its *head*, the number of entries the dictionary
//! has with that row (20 ASCII digits) and their id (`id_at` of that
//! number, 16 hex digits), then [`Dictionary::delta_since`] of the
//! previous row's number. So:
//!
//! - **Append-only, atomic.** A writer appends a row with one Lua script,
//!   [`APPEND_SCRIPT`], which appends it only if the list's last row has
//!   the head the writer's row continues (a compare-and-append on one
//!   key, so one slot, so one script run on one master; the id in the
//!   head tells a list that lost a row in a failover and grew again to
//!   the same count from the one the writer read).
//! - **Acknowledged before the records.** `flush` writes records only
//!   once every row they need is acknowledged by a replica: its own row
//!   by the `WAIT` after its append, rows other clients added (which it
//!   may have read before their writers' `WAIT` returned) by writing the
//!   last row they need again ([`CONFIRM_SCRIPT`]) with a `WAIT` after it
//!   (a master's replication is in order, so that covers every earlier
//!   row). An acknowledged record never outlives its entries.
//! - **Concurrent writers.** A writer whose append finds the list grown by
//!   another client reads the new rows, writes its pending records that
//!   used its own new entries again against the merged dictionary, and
//!   appends again.
//! - **Cached.** Each client keeps the entries and the rows it has read;
//!   a record that names entries past them, or entries its cache holds
//!   under another id, makes it read the rows it lacks (`LRANGE` from its
//!   number of rows), or all of them again if those do not continue its
//!   cache (a row lost in a failover).

use std::sync::Arc;

use redis::Value;
use roving::{Dictionary, Document};

use super::{ClusterStore, Op, Verb};
use crate::error::{Result, StoreError, StoreErrorKind};

/// Digits of a row's entry count.
const COUNT_DIGITS: usize = 20;
/// Bytes of a row's head: the entry count, then the id in hex.
const HEAD_LEN: usize = COUNT_DIGITS + 16;

/// Appends `ARGV[2]` (a row) to the list `KEYS[1]` if its last row's
/// head is `ARGV[1]` (empty: if the list is empty). Returns `{1, rows}`
/// when it appended, `{0, rows}` otherwise (`rows`: the list's length).
pub(super) const APPEND_SCRIPT: &str = "\
local last = redis.call('LINDEX', KEYS[1], -1)
local head = ''
if last then head = string.sub(last, 1, 36) end
if head ~= ARGV[1] then return {0, redis.call('LLEN', KEYS[1])} end
return {1, redis.call('RPUSH', KEYS[1], ARGV[2])}";

/// Writes row `ARGV[1]` (0-based) of the list `KEYS[1]` again, unchanged,
/// if its head is `ARGV[2]`: a write that replicates, so that a `WAIT`
/// after it on the same connection covers every earlier row. Returns 1,
/// or 0 if the row is not there (lost in a failover).
pub(super) const CONFIRM_SCRIPT: &str = "\
local i = tonumber(ARGV[1])
local row = redis.call('LINDEX', KEYS[1], i)
if (not row) or string.sub(row, 1, 36) ~= ARGV[2] then return 0 end
redis.call('LSET', KEYS[1], i, row)
return 1";

/// What follows a store's prefix in its dictionary's key.
pub(super) const DICT_NAME: &[u8] = b"\0dict";

/// The Redis key of the store-wide dictionary of the store with `prefix`.
pub(super) fn dict_key(prefix: &[u8]) -> Vec<u8> {
    let mut k = prefix.to_vec();
    k.extend_from_slice(DICT_NAME);
    k
}

/// The head of a row after which a dictionary has `n` entries and `id`.
fn head(n: usize, id: u64) -> Vec<u8> {
    format!("{n:0COUNT_DIGITS$}{id:016x}").into_bytes()
}

/// The head a row that continues the first `n` entries of `dict` must
/// follow (empty for 0: the list must be empty).
fn head_at(dict: &Dictionary, n: usize) -> Vec<u8> {
    match (n, dict.id_at(n)) {
        (0, _) | (_, None) => Vec::new(),
        (n, Some(id)) => head(n, id),
    }
}

/// The row that adds the entries of `dict` past `base`.
pub(super) fn row(dict: &Dictionary, base: usize) -> Vec<u8> {
    let mut r = head(dict.len(), dict.id());
    r.extend_from_slice(&dict.delta_since(base));
    r
}

/// The number of first entries `a` and `b` share (equal ids).
fn common_len(a: &Dictionary, b: &Dictionary) -> usize {
    let mut n = a.len().min(b.len());
    while n > 0 && a.id_at(n) != b.id_at(n) {
        n -= 1;
    }
    n
}

#[cold]
fn damaged(msg: impl std::fmt::Display) -> StoreError {
    StoreError::new(
        StoreErrorKind::Corrupt,
        format!("the store is damaged: its dictionary {msg}"),
    )
}

/// What a client has read of the dictionary: its entries (the cluster's
/// first ones, unless a failover lost a row since) and the rows they came
/// from.
#[derive(Clone, Default)]
pub(super) struct Cache {
    pub(super) dict: Arc<Dictionary>,
    /// The entry count after each row read.
    ends: Vec<usize>,
    /// Entries this client knows a replica has acknowledged.
    acked: usize,
}

impl Cache {
    /// This cache followed by `rows` (the list's rows from number
    /// `self.ends.len()` on), or `None` if they do not continue it (a
    /// malformed row, another base, a head that disagrees).
    fn extended(&self, rows: &[Vec<u8>]) -> Option<Cache> {
        if rows.is_empty() {
            return Some(self.clone());
        }
        let mut c = self.clone();
        let d = Arc::make_mut(&mut c.dict);
        for r in rows {
            let head = std::str::from_utf8(r.get(..HEAD_LEN)?).ok()?;
            let count: usize = head[..COUNT_DIGITS].parse().ok()?;
            let id = u64::from_str_radix(&head[COUNT_DIGITS..], 16).ok()?;
            d.extend_from_delta(&r[HEAD_LEN..]).ok()?;
            if d.len() != count || d.id() != id {
                return None;
            }
            c.ends.push(count);
        }
        Some(c)
    }

    /// The number of the first row after which the cache has `n` entries
    /// or more, and the head of that row.
    fn row_covering(&self, n: usize) -> Option<(usize, Vec<u8>)> {
        let i = self.ends.partition_point(|&e| e < n);
        let end = *self.ends.get(i)?;
        Some((i, head(end, self.dict.id_at(end)?)))
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
    /// dictionary, and the value strings that have now recurred in a few
    /// records (see [`Learner`](roving::dictionary::Learner)): the next
    /// flush appends them to the cluster's before writing the records.
    /// Does nothing with
    /// [`ClusterOptions::dictionary`](super::ClusterOptions::dictionary)
    /// false, or once the dictionary's base reaches
    /// [`AUTO_GROWTH_MAX_BASE`](roving::dictionary::AUTO_GROWTH_MAX_BASE)
    /// bytes (later shapes stay in their records).
    pub fn grow_dictionary(&mut self, enc: &roving::Encoder) {
        if self.opts.dictionary && self.ours.base_len() < roving::dictionary::AUTO_GROWTH_MAX_BASE {
            self.learner.learn(enc, Arc::make_mut(&mut self.ours));
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

    /// The list's rows from number `from` on.
    fn fetch_rows(&self, from: usize) -> Result<Vec<Vec<u8>>> {
        let mut op = Op::new(Verb::Rows, dict_key(&self.prefix), &[]);
        op.n = from;
        match self.run(&[op], false)?.pop() {
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|v| match v {
                    Value::BulkString(b) => Ok(b),
                    _ => Err(self.err(damaged("has a row that is not a string"))),
                })
                .collect(),
            Some(Value::Nil) => Ok(Vec::new()),
            other => Err(self.err(damaged(format_args!("key is not a list: {other:?}")))),
        }
    }

    /// Reads the rows `cache` lacks; if they do not continue it (a row it
    /// read was lost in a failover, and the list grew again), reads the
    /// whole list again.
    fn load_rows(&self, cache: &mut Cache) -> Result<()> {
        let rows = self.fetch_rows(cache.ends.len())?;
        if let Some(c) = cache.extended(&rows) {
            *cache = c;
            return Ok(());
        }
        self.reload_rows(cache)
    }

    /// Reads the whole list again into a new cache.
    fn reload_rows(&self, cache: &mut Cache) -> Result<()> {
        let rows = self.fetch_rows(0)?;
        *cache = Cache::default()
            .extended(&rows)
            .ok_or_else(|| self.err(damaged("has rows that do not follow one another")))?;
        Ok(())
    }

    /// The cached dictionary, holding the entries the bound document
    /// `buf` needs if the cluster has them (read first if the cache lacks
    /// them, or holds others under their number).
    pub(super) fn dictionary_for(&self, buf: &[u8]) -> Result<Arc<Dictionary>> {
        let Ok(Some(b)) = roving::layout::read_binding(buf) else {
            return Ok(self.cache().dict.clone());
        };
        let has = |d: &Dictionary| usize::try_from(b.count).is_ok_and(|n| d.id_at(n) == Some(b.id));
        let mut cache = self.cache();
        if !has(&cache.dict) {
            self.load_rows(&mut cache)?;
            if !has(&cache.dict) && cache.dict.len() as u64 >= b.count {
                self.reload_rows(&mut cache)?;
            }
        }
        Ok(cache.dict.clone())
    }

    /// The plain document that `bytes`, record `key` written against `d`
    /// (or a prefix of it), reads as, validated.
    pub(super) fn resolve(&self, key: &str, bytes: &[u8], d: &Dictionary) -> Result<Arc<[u8]>> {
        let mut scratch = Vec::new();
        // `open_with` validates the record after the dictionary's base
        // (checked once per growth), as the LMDB backend's reads do.
        match Document::open_with(bytes, d, &mut scratch) {
            Ok(doc) => Ok(Arc::from(doc.as_bytes())),
            Err(e) => Err(self.err(match e.kind() {
                roving::ErrorKind::DictionaryMismatch | roving::ErrorKind::DictionaryRequired => {
                    crate::dict::missing(key, &e)
                }
                _ => StoreError::new(
                    StoreErrorKind::Corrupt,
                    format!("the record {key:?} is not a valid roving document: {e}"),
                )
                .with_source(e),
            })),
        }
    }

    /// Writes against the cached dictionary from now on (after a flush, a
    /// reload, an open: no pending record uses entries of its own).
    pub(super) fn adopt_dictionary(&mut self) {
        if self.ours.len() == self.base && self.pending.is_empty() {
            let d = self.cache().dict.clone();
            self.base = d.len();
            self.ours = d;
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

    /// Makes the entries the pending records need durable before they
    /// are written: appends the entries this client added to the
    /// cluster's dictionary, and makes sure a replica has acknowledged
    /// every row they need. If another client appended first, merges:
    /// its entries come first, and the pending records that used this
    /// client's own entries are written again against the merged
    /// dictionary.
    pub(super) fn commit_dictionary(&mut self) -> Result<()> {
        for _ in 0..APPEND_TRIES {
            if self.ours.len() > self.base {
                if !self.append_own()? {
                    self.reconcile()?;
                }
                continue;
            }
            let need = self
                .pending
                .values()
                .flatten()
                .map(|b| crate::dict::needs(b))
                .max()
                .unwrap_or(0);
            let (shared, acked) = {
                let cache = self.cache();
                (common_len(&cache.dict, &self.ours), cache.acked)
            };
            if shared < need {
                // The cache was read again since these records were
                // written (a row they need was lost in a failover): write
                // them again against what the cluster holds.
                self.reconcile()?;
                continue;
            }
            if need <= acked {
                return Ok(());
            }
            if self.confirm(need)? {
                return Ok(());
            }
            // The row is not the cluster's any more: a failover lost it
            // (before any record that needs it was acknowledged).
            self.reload_rows(&mut self.cache())?;
            self.reconcile()?;
        }
        Err(self.err(StoreError::new(
            StoreErrorKind::Cluster,
            format!(
                "other clients kept growing the store's dictionary: {APPEND_TRIES} appends \
                 failed; flush again"
            ),
        )))
    }

    /// Appends this client's own entries as one row, acknowledged; false
    /// if the list did not end where they start (its new rows are read).
    fn append_own(&mut self) -> Result<bool> {
        let row = row(&self.ours, self.base);
        let mut op = Op::new(Verb::Append, dict_key(&self.prefix), &row);
        op.extra = head_at(&self.ours, self.base);
        let answer = self.run(&[op], true)?.pop();
        let appended = match &answer {
            Some(Value::Array(a)) => matches!(a.first(), Some(Value::Int(1))),
            _ => return Err(self.err(damaged(format_args!("append script answered {answer:?}")))),
        };
        let mut cache = self.cache();
        if appended
            && cache.dict.len() == self.base
            && cache.dict.id() == self.ours.id_at(self.base).unwrap_or(0)
        {
            // The list ended with the cache's last row: ours follows it,
            // acknowledged by the WAIT after it on the same connection.
            cache.dict = self.ours.clone();
            cache.ends.push(self.ours.len());
            cache.acked = self.ours.len();
            drop(cache);
            self.base = self.ours.len();
            return Ok(true);
        }
        self.load_rows(&mut cache)?;
        Ok(false)
    }

    /// After the cluster's list turned out to differ from what this client
    /// wrote against: continues from the cached dictionary, followed by
    /// this client's entries it lacks; pending records that used entries
    /// the cache does not hold are written again against that.
    fn reconcile(&mut self) -> Result<()> {
        let theirs = self.cache().dict.clone();
        let k = common_len(&theirs, &self.ours);
        if k == self.ours.len() {
            // Every entry of ours is the cluster's (an append sent again
            // after its first try went in, or another client's equal row).
            self.base = theirs.len();
            self.ours = theirs;
            return Ok(());
        }
        let mut merged = crate::dict::merged(&theirs, &self.ours, k);
        // All or nothing: on error the records stay as they were.
        for (key, again) in self.rewrite_own(k, &mut merged)? {
            self.pending.insert(key, Some(again));
        }
        self.base = theirs.len();
        self.ours = Arc::new(merged);
        Ok(())
    }

    /// Writes the row that takes the dictionary to `need` entries or more
    /// again, with a `WAIT` after it; false if the list no longer holds
    /// that row.
    fn confirm(&mut self, need: usize) -> Result<bool> {
        let Some((i, head)) = self.cache().row_covering(need) else {
            return Ok(false);
        };
        let mut op = Op::new(Verb::Confirm, dict_key(&self.prefix), &[]);
        op.n = i;
        op.extra = head;
        let ok = matches!(self.run(&[op], true)?.pop(), Some(Value::Int(1)));
        if ok {
            let mut cache = self.cache();
            cache.acked = cache.acked.max(cache.ends[i]);
        }
        Ok(ok)
    }

    /// Each pending record that uses entries past the first `k` of the
    /// dictionary it was written against, written again against `merged`,
    /// which grows by its shapes.
    fn rewrite_own(&self, k: usize, merged: &mut Dictionary) -> Result<Vec<(String, Arc<[u8]>)>> {
        let mut out = Vec::new();
        for (key, v) in &self.pending {
            let Some(buf) = v else { continue };
            if crate::dict::needs(buf) <= k {
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
