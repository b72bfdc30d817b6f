//! Transactions of a [`ClusterStore`]: optimistic, over the keys of one
//! hash slot (`WATCH`, `MULTI`, `EXEC` on one master).
//!
//! Every key a transaction reads from the cluster is `WATCH`ed on a
//! connection of its own to the slot's master, and read there; writes are
//! pending. The commit sends `MULTI`, the writes, `EXEC` and `WAIT`: if
//! another client changed a watched key meanwhile, `EXEC` does nothing
//! and the commit fails with [`StoreErrorKind::Transaction`] (run it
//! again). All keys of a transaction must share one slot (a hash tag:
//! `{cart:7}:items`, `{cart:7}:total`); a key of another slot fails
//! with the same kind at once.

use redis::Value;

use super::{slot, ClusterStore};
use crate::error::{Result, StoreError, StoreErrorKind};

/// An open transaction.
pub(super) struct Txn {
    /// The slot of its keys, once one was touched.
    slot: Option<u16>,
    /// The slot's master and the connection that `WATCH`ed.
    conn: Option<(String, redis::Connection)>,
}

impl Txn {
    pub(super) fn new() -> Txn {
        Txn {
            slot: None,
            conn: None,
        }
    }
}

/// A `Transaction` error with `message`.
#[cold]
fn txn_error(message: impl Into<String>) -> StoreError {
    StoreError::new(StoreErrorKind::Transaction, message)
}

impl ClusterStore {
    /// Checks that `key` may join the open transaction (its slot is the
    /// transaction's), if one is open.
    pub(super) fn txn_claim(&self, key: &str) -> Result<()> {
        let mut guard = self.txn_lock();
        let Some(t) = guard.as_mut() else {
            return Ok(());
        };
        let s = slot::slot(&self.redis_key(key));
        match t.slot {
            None => {
                t.slot = Some(s);
                Ok(())
            }
            Some(have) if have == s => Ok(()),
            Some(have) => Err(self.err(txn_error(format!(
                "the key {key:?} is in hash slot {s}, this transaction's keys in slot {have}: \
                 a transaction holds across keys of one slot only (give them one hash tag, \
                 e.g. \"{{user:1}}:cart\" and \"{{user:1}}:total\")"
            )))),
        }
    }

    /// The transaction's connection to its slot's master, opened at once.
    fn txn_conn<'a>(&self, t: &'a mut Txn) -> Result<&'a mut (String, redis::Connection)> {
        if t.conn.is_none() {
            let Some(s) = t.slot else {
                return Err(txn_error("the transaction has no key yet"));
            };
            let mut net = self.net();
            if net.master_of(s).is_none() {
                net.refresh(&self.opts)?;
            }
            let addr = net
                .master_of(s)
                .ok_or_else(|| txn_error(format!("slot {s} has no master")))?
                .to_owned();
            // A connection of its own (WATCH belongs to a connection):
            // the shared one, taken out of the pool.
            net.conn(&addr, &self.opts)?;
            let c = net.conns.remove(&addr).expect("just opened");
            t.conn = Some((addr, c));
        }
        Ok(t.conn.as_mut().expect("just set"))
    }

    /// Reads `keys` (all of the transaction's slot) after `WATCH`ing them,
    /// on the transaction's connection.
    pub(super) fn txn_read(&self, keys: &[&str]) -> Result<Vec<Value>> {
        for k in keys {
            self.txn_claim(k)?;
        }
        let mut guard = self.txn_lock();
        let t = guard
            .as_mut()
            .ok_or_else(|| txn_error("no transaction is open"))?;
        let (addr, conn) = self.txn_conn(t)?;
        let mut watch = redis::cmd("WATCH");
        let mut get = redis::pipe();
        for k in keys {
            let rk = self.redis_key(k);
            watch.arg(&rk);
            get.cmd("GET").arg(rk);
        }
        let moved = |e: &redis::RedisError| {
            matches!(e.code(), Some("MOVED" | "ASK" | "TRYAGAIN" | "CLUSTERDOWN"))
        };
        let r = watch
            .query::<()>(conn)
            .and_then(|()| get.query::<Vec<Value>>(conn));
        match r {
            Ok(v) => Ok(v),
            Err(e) if moved(&e) => Err(self.err(txn_error(format!(
                "the slot of this transaction moved or is failing over ({e}): nothing was \
                 written; run it again"
            )))),
            Err(e) => Err(self.err(super::node_error(addr, e))),
        }
    }

    /// Begins a transaction: flushes the changes pending before it, then
    /// reads and writes of keys of one hash slot are one optimistic
    /// transaction until [`commit_transaction`](ClusterStore::commit_transaction)
    /// or [`abort_transaction`](ClusterStore::abort_transaction). They do
    /// not nest; `flush` and `reload` fail inside one.
    pub fn begin_transaction(&mut self) -> Result<()> {
        self.check_writable()?;
        if self.txn_lock().is_some() {
            return Err(self.err(txn_error("a transaction is open already: they do not nest")));
        }
        self.flush()?;
        *self.txn_lock() = Some(Txn::new());
        Ok(())
    }

    /// True while a transaction is open.
    pub fn in_transaction(&self) -> bool {
        self.txn_lock().is_some()
    }

    /// Commits the open transaction: the dictionary entries its records
    /// need (as [`flush`](ClusterStore::flush) does), then `MULTI`, its
    /// writes, `EXEC` (which
    /// does nothing if another client changed a key it read: then a
    /// [`Transaction`](StoreErrorKind::Transaction) error, run it again),
    /// then `WAIT` for the replicas. Its changes are no longer pending
    /// afterwards, whatever the outcome.
    pub fn commit_transaction(&mut self) -> Result<()> {
        let Some(mut t) = self.txn_lock().take() else {
            return Err(self.err(txn_error("no transaction is open")));
        };
        // The dictionary entries its records need first (acknowledged).
        if let Err(e) = self.commit_dictionary() {
            self.pending.clear();
            self.drop_own_entries();
            return Err(e);
        }
        let changes = std::mem::take(&mut self.pending);
        if changes.is_empty() {
            return Ok(()); // dropping the connection drops its WATCHes
        }
        let (addr, conn) = self.txn_conn(&mut t)?;
        let mut p = redis::pipe();
        p.atomic();
        for (k, v) in &changes {
            let rk = self.redis_key(k);
            match v {
                Some(b) => p.cmd("SET").arg(rk).arg(&**b),
                None => p.cmd("DEL").arg(rk),
            };
        }
        let done: Option<Vec<Value>> = p.query(conn).map_err(|e| {
            self.err(match e.code() {
                Some("MOVED" | "ASK" | "TRYAGAIN" | "CLUSTERDOWN" | "EXECABORT") => txn_error(
                    format!("the transaction's slot moved or failed over ({e}): nothing was written; run it again"),
                ),
                _ => super::node_error(addr, e),
            })
        })?;
        if done.is_none() {
            return Err(self.err(txn_error(
                "another client changed a key this transaction read: nothing was written; \
                 run it again",
            )));
        }
        if self.opts.replicas > 0 {
            let n: i64 = redis::cmd("WAIT")
                .arg(self.opts.replicas)
                .arg(self.opts.wait_timeout.as_millis().max(1) as u64)
                .query(conn)
                .map_err(|e| self.err(super::node_error(addr, e)))?;
            if n < i64::from(self.opts.replicas) {
                return Err(self.err(super::node_error(
                    addr,
                    format_args!(
                        "the transaction was committed by the master, but {n} of {} replica(s) \
                         acknowledged it within {} ms",
                        self.opts.replicas,
                        self.opts.wait_timeout.as_millis()
                    ),
                )));
            }
        }
        Ok(())
    }

    /// Drops the open transaction and its changes.
    pub fn abort_transaction(&mut self) -> Result<()> {
        if self.txn_lock().take().is_none() {
            return Err(self.err(txn_error("no transaction is open")));
        }
        self.pending.clear();
        self.drop_own_entries();
        Ok(())
    }

    /// Runs `f` in a transaction: commits if it returns `Ok`, aborts if it
    /// returns `Err` or panics.
    pub fn transaction<T, E: From<StoreError>>(
        &mut self,
        f: impl FnOnce(&mut ClusterStore) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        crate::Backend::transaction(self, f)
    }

    /// The error of `flush` or `reload` inside a transaction.
    pub(super) fn check_no_transaction(&self, what: &str) -> Result<()> {
        if self.txn_lock().is_some() {
            return Err(self.err(txn_error(format!(
                "{what} inside a transaction: end it first (commit or abort)"
            ))));
        }
        Ok(())
    }
}
