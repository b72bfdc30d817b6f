//! The backend interface: what a store of roving documents does, whatever
//! keeps them. [`Store`] (LMDB, embedded, the default) and
//! [`ClusterStore`](crate::ClusterStore) (a Redis Cluster) both implement
//! it, so that code written against [`Backend`] runs on either.
//!
//! The two differ in what a read borrows (LMDB lends bytes from its memory
//! map, zero-copy; the cluster copies each record off the network) and in
//! what `flush` promises (one durable LMDB transaction; on the cluster,
//! each key atomic and acknowledged by its master and a replica): see
//! each type. Through this trait, records are handed out as validated,
//! owned bytes.

use std::ops::Bound;
use std::sync::Arc;

use crate::error::{Result, StoreError};
use crate::store::Store;

/// A keyed store of roving documents with pending changes and `flush`.
pub trait Backend {
    /// The validated bytes of the document under `key` (pending changes
    /// first), copied out of the store.
    fn load(&self, key: &str) -> Result<Option<Arc<[u8]>>>;
    /// Puts `doc` (validated) under `key`: pending until [`flush`](Backend::flush).
    fn put(&mut self, key: &str, doc: Vec<u8>) -> Result<()>;
    /// Deletes `key` (pending); true if it was there.
    fn delete(&mut self, key: &str) -> Result<bool>;
    /// True if the store has `key` (pending changes included).
    fn contains(&self, key: &str) -> Result<bool>;
    /// The number of records, pending changes included.
    fn len(&self) -> Result<u64>;
    /// True if the store has no record.
    fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
    /// Every key, pending changes included, sorted by their bytes.
    fn keys(&self) -> Result<Vec<String>>;
    /// Makes every pending change durable (see each backend for what
    /// that means), or fails and keeps them pending.
    fn flush(&mut self) -> Result<()>;
    /// Drops the pending changes and reads the newest committed state.
    fn reload(&mut self) -> Result<()>;
    /// True if there are changes not yet flushed.
    fn is_dirty(&self) -> bool;
    /// The store-wide dictionary (`docs/FORMAT.md` section 23) that
    /// records are written against: write one with
    /// [`Encoder::use_dictionary`](roving::Encoder::use_dictionary), then
    /// [`grow_dictionary`](Backend::grow_dictionary), then
    /// [`put`](Backend::put).
    fn dictionary(&self) -> &roving::Dictionary;
    /// Adds the shapes the document `enc` wrote itself to the store's
    /// dictionary; the next flush makes them durable before the records
    /// that use them.
    fn grow_dictionary(&mut self, enc: &roving::Encoder);
    /// Begins a transaction: reads and writes until
    /// [`commit_transaction`](Backend::commit_transaction) or
    /// [`abort_transaction`](Backend::abort_transaction) are one atomic
    /// read-modify-write (see each backend for what it spans).
    fn begin_transaction(&mut self) -> Result<()>;
    /// Commits the open transaction.
    fn commit_transaction(&mut self) -> Result<()>;
    /// Drops the open transaction and its changes.
    fn abort_transaction(&mut self) -> Result<()>;

    /// Runs `f` in a transaction ([`begin_transaction`](Backend::begin_transaction)):
    /// commits if it returns `Ok`, aborts if it returns `Err` or panics
    /// (and the panic goes on).
    fn transaction<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&mut Self) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        Self: Sized,
    {
        self.begin_transaction()?;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(self))) {
            Ok(Ok(v)) => {
                self.commit_transaction()?;
                Ok(v)
            }
            Ok(Err(e)) => {
                let _ = self.abort_transaction();
                Err(e)
            }
            Err(panic) => {
                let _ = self.abort_transaction();
                std::panic::resume_unwind(panic)
            }
        }
    }
}

impl Backend for Store {
    fn load(&self, key: &str) -> Result<Option<Arc<[u8]>>> {
        // `get_with`, not `get`: a record written against the dictionary
        // is read into a buffer of this call, not kept by the snapshot
        // until the next flush or reload (memory would grow with every
        // load).
        let mut scratch = Vec::new();
        Ok(self
            .get_with(key, &mut scratch)?
            .map(|d| Arc::from(d.as_bytes())))
    }

    fn put(&mut self, key: &str, doc: Vec<u8>) -> Result<()> {
        Store::put(self, key, doc)
    }

    fn delete(&mut self, key: &str) -> Result<bool> {
        Store::delete(self, key)
    }

    fn contains(&self, key: &str) -> Result<bool> {
        Store::contains(self, key)
    }

    fn len(&self) -> Result<u64> {
        Store::len(self)
    }

    fn keys(&self) -> Result<Vec<String>> {
        self.raw_iter_from(Bound::Unbounded)
            .map(|r| r.map(|(k, _)| k.to_owned()))
            .collect()
    }

    fn flush(&mut self) -> Result<()> {
        Store::flush(self)
    }

    fn reload(&mut self) -> Result<()> {
        Store::reload(self)
    }

    fn is_dirty(&self) -> bool {
        Store::is_dirty(self)
    }

    fn dictionary(&self) -> &roving::Dictionary {
        Store::dictionary(self)
    }

    fn grow_dictionary(&mut self, enc: &roving::Encoder) {
        Store::grow_dictionary(self, enc);
    }

    fn begin_transaction(&mut self) -> Result<()> {
        Store::begin_transaction(self)
    }

    fn commit_transaction(&mut self) -> Result<()> {
        Store::commit_transaction(self)
    }

    fn abort_transaction(&mut self) -> Result<()> {
        Store::abort_transaction(self)
    }
}
