//! Transactions: LMDB's write lock held across a read-modify-write
//! ([`Store::begin_transaction`](crate::Store::begin_transaction) ...
//! [`commit_transaction`](crate::Store::commit_transaction)).
//!
//! LMDB's write transaction must end in the thread that began it (its
//! write lock is a mutex that thread owns), but the transaction of a
//! `Store` may end in another thread (the `Store` was moved, or Python
//! ran the end of a `with` block elsewhere). So the write transaction
//! lives on a thread of its own, a [`Writer`]: it takes the lock, begins
//! the transaction, waits for the changes, writes and commits them, and
//! ends; dropping the `Writer` instead aborts the transaction. Meanwhile
//! the `Store` reads a snapshot begun while the lock was held (the newest
//! state, which no other writer can change until the transaction ends)
//! with its pending changes on top, as it always does.

use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

use crate::dict::DictWrite;
use crate::error::{StoreError, StoreErrorKind};
use crate::pending::Pending;
use crate::shared::Shared;
use crate::store::{classify, write_and_commit, LiveGuard, WriteFail};

/// What the writer's thread gives back once it ends: `None` if the
/// transaction was aborted, else the commit's result and the changes.
type Outcome = Option<(std::result::Result<(), WriteFail>, Pending)>;

/// An open write transaction, on a thread of its own.
pub(crate) struct Writer {
    shared: Arc<Shared>,
    /// Sends the changes to commit; dropped, it aborts.
    jobs: Option<mpsc::Sender<(Pending, DictWrite)>>,
    handle: Option<JoinHandle<Outcome>>,
    /// The transaction's id: the id of the state it began from, plus one.
    pub(crate) id: usize,
    /// The thread that began it (recorded in `shared.txn_thread`).
    thread: std::thread::ThreadId,
}

impl Writer {
    /// Takes the write lock (waiting for other writers, in this process
    /// or others) and begins a write transaction.
    pub(crate) fn start(shared: &Arc<Shared>) -> std::result::Result<Writer, WriteFail> {
        let (ready_tx, ready_rx) = mpsc::channel();
        let (jobs_tx, jobs_rx) = mpsc::channel::<(Pending, DictWrite)>();
        let sh = shared.clone();
        let handle = std::thread::Builder::new()
            .name("roving-store-transaction".into())
            .spawn(move || run(&sh, &ready_tx, &jobs_rx))
            .map_err(|e| WriteFail::Other(shared.err(StoreError::from(e))))?;
        match ready_rx.recv() {
            Ok(Ok(id)) => {
                let thread = std::thread::current().id();
                *lock(&shared.txn_thread) = Some(thread);
                Ok(Writer {
                    shared: shared.clone(),
                    jobs: Some(jobs_tx),
                    handle: Some(handle),
                    id,
                    thread,
                })
            }
            Ok(Err(fail)) => {
                let _ = handle.join();
                Err(fail)
            }
            Err(_) => {
                let _ = handle.join();
                Err(WriteFail::Other(thread_died(shared)))
            }
        }
    }

    /// Writes `changes` into the transaction and commits it. On failure,
    /// the changes come back (unless the thread died).
    pub(crate) fn commit(
        mut self,
        changes: Pending,
        dict: DictWrite,
    ) -> std::result::Result<(), (WriteFail, Option<Box<Pending>>)> {
        let sent = match self.jobs.take() {
            Some(jobs) => jobs.send((changes, dict)).map_err(|e| e.0 .0),
            None => Err(changes),
        };
        if let Err(changes) = sent {
            return Err((
                WriteFail::Other(thread_died(&self.shared)),
                Some(Box::new(changes)),
            ));
        }
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(Some((Ok(()), _)))) => Ok(()),
            Some(Ok(Some((Err(fail), changes)))) => Err((fail, Some(Box::new(changes)))),
            _ => Err((WriteFail::Other(thread_died(&self.shared)), None)),
        }
    }
}

impl Drop for Writer {
    /// Aborts the transaction if it was not committed, and waits for its
    /// thread to end (so that the write lock is free when this returns).
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        // (Unless a transaction begun since in another thread is there.)
        let mut owner = lock(&self.shared.txn_thread);
        if *owner == Some(self.thread) {
            *owner = None;
        }
    }
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cold]
fn thread_died(shared: &Shared) -> StoreError {
    shared.err(StoreError::new(
        StoreErrorKind::Lmdb,
        "the thread of the write transaction ended unexpectedly",
    ))
}

/// The error of a transaction misused (kind `Transaction`).
#[cold]
pub(crate) fn misuse(shared: &Shared, what: &str) -> StoreError {
    shared.err(StoreError::new(StoreErrorKind::Transaction, what))
}

/// Fails if the calling thread has a transaction open on this file (on
/// another `Store`): taking the write lock here would wait for it forever.
pub(crate) fn check_thread(shared: &Shared) -> crate::Result<()> {
    if *lock(&shared.txn_thread) == Some(std::thread::current().id()) {
        return Err(misuse(
            shared,
            "a transaction of another Store of this file is open in this thread: \
             a flush or a transaction here would wait for it forever; end it first",
        ));
    }
    Ok(())
}

/// The writer's thread: holds the lock and the transaction until told to
/// commit (`jobs` gives the changes) or to abort (`jobs` closed).
fn run(
    shared: &Shared,
    ready: &mpsc::Sender<std::result::Result<usize, WriteFail>>,
    jobs: &mpsc::Receiver<(Pending, DictWrite)>,
) -> Outcome {
    let _w = lock(&shared.write);
    let began = {
        let _g = shared.gate.read().unwrap_or_else(|e| e.into_inner());
        shared.env.write_txn().inspect(|_| {
            shared.live.fetch_add(1, Ordering::SeqCst);
        })
    };
    let wtxn = match began {
        Ok(t) => t,
        Err(e) => {
            let _ = ready.send(Err(classify(shared, e)));
            return None;
        }
    };
    // Counted in `live` until the transaction ends (the map cannot move).
    let live = LiveGuard(shared);
    if ready.send(Ok(wtxn.id())).is_err() {
        wtxn.abort();
        return None;
    }
    let Ok((changes, dict)) = jobs.recv() else {
        wtxn.abort();
        return None;
    };
    let r = write_and_commit(shared, wtxn, &changes, &dict);
    drop(live);
    Some((r, changes))
}
