//! Transactions: a read-modify-write that no other writer interleaves
//! with (`Store::begin_transaction` / `commit_transaction` /
//! `abort_transaction`, and the closure form `Store::transaction`).

mod common;

use roving_store::{Store, StoreError, StoreErrorKind, StoreOptions};

use common::{doc_of, tmp};

fn num(s: &Store, key: &str) -> Option<u64> {
    s.get(key).unwrap().map(|d| d.root().as_u64().unwrap())
}

fn open(path: &std::path::Path) -> Store {
    Store::open(path, &StoreOptions::default()).unwrap()
}

/// Increments the counter under `key` in a transaction.
fn increment(s: &mut Store, key: &str) -> Result<u64, StoreError> {
    s.transaction(|s| {
        let n = num(s, key).unwrap_or(0) + 1;
        s.put(key, doc_of(n))?;
        Ok(n)
    })
}

/// Reads inside a transaction see the newest committed state (another
/// Store's commit, which a plain read of this one's older snapshot does
/// not see) and the transaction's own changes; the commit makes them all
/// visible at once, as one new state.
#[test]
fn a_transaction_reads_the_newest_state_and_commits_at_once() {
    let (_d, path) = tmp();
    let mut a = open(&path);
    let mut b = open(&path);
    b.put("n", doc_of(5)).unwrap();
    b.flush().unwrap();
    assert_eq!(num(&a, "n"), None); // a's snapshot is older
    let before = a.snapshot().unwrap().txn_id();
    a.begin_transaction().unwrap();
    assert!(a.in_transaction());
    assert_eq!(num(&a, "n"), Some(5)); // the newest state
    a.put("n", doc_of(6)).unwrap();
    a.put("m", doc_of(1)).unwrap();
    assert_eq!(num(&a, "n"), Some(6)); // its own changes
    assert_eq!(a.len().unwrap(), 2);
    assert_eq!(num(&b, "n"), Some(5)); // not visible yet
    a.commit_transaction().unwrap();
    assert!(!a.in_transaction() && !a.is_dirty());
    assert_eq!(a.snapshot().unwrap().txn_id(), before + 2); // b's commit, then this one
    b.reload().unwrap();
    assert_eq!((num(&b, "n"), num(&b, "m")), (Some(6), Some(1)));
}

/// An abort (or an `Err` from the closure) drops every change of the
/// transaction; changes pending before it began were flushed first, in a
/// commit of their own, and survive the abort.
#[test]
fn an_abort_drops_the_transactions_changes_only() {
    let (_d, path) = tmp();
    let mut s = open(&path);
    s.put("before", doc_of(1)).unwrap();
    s.begin_transaction().unwrap();
    assert!(!s.is_dirty()); // flushed when the transaction began
    s.put("inside", doc_of(2)).unwrap();
    assert!(s.delete("before").unwrap());
    s.abort_transaction().unwrap();
    assert!(!s.is_dirty());
    assert_eq!((num(&s, "before"), num(&s, "inside")), (Some(1), None));
    let r: Result<(), StoreError> = s.transaction(|s| {
        s.put("inside", doc_of(3))?;
        Err(StoreError::new(StoreErrorKind::Io, "the caller's error"))
    });
    assert_eq!(r.unwrap_err().message(), "the caller's error");
    let other = open(&path);
    assert_eq!(
        (num(&other, "before"), num(&other, "inside")),
        (Some(1), None)
    );
    assert_eq!(num(&s, "inside"), None);
}

/// Misuse is an error of kind `Transaction` (or `ReadOnly`), never a
/// deadlock: nested transactions, flush or reload inside one, ending one
/// that is not open, and another Store of the file flushing or beginning
/// a transaction in the thread that holds one.
#[test]
fn misuse_is_a_clear_error() {
    let (_d, path) = tmp();
    let mut s = open(&path);
    let kind = |r: Result<(), StoreError>| r.unwrap_err().kind();
    assert_eq!(kind(s.commit_transaction()), StoreErrorKind::Transaction);
    assert_eq!(kind(s.abort_transaction()), StoreErrorKind::Transaction);
    s.begin_transaction().unwrap();
    let e = s.begin_transaction().unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Transaction);
    assert!(e.to_string().contains("do not nest"), "{e}");
    s.put("k", doc_of(1)).unwrap();
    assert_eq!(kind(s.flush()), StoreErrorKind::Transaction);
    assert_eq!(kind(s.reload()), StoreErrorKind::Transaction);
    assert!(s.is_dirty()); // still in the transaction, changes kept
    let mut other = open(&path);
    other.put("j", doc_of(2)).unwrap();
    let e = other.flush().unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Transaction);
    assert!(e.to_string().contains("wait for it forever"), "{e}");
    assert_eq!(kind(other.begin_transaction()), StoreErrorKind::Transaction);
    s.commit_transaction().unwrap();
    other.flush().unwrap(); // the lock is free again
    assert_eq!(num(&other, "k"), Some(1));
    drop((s, other));

    let mut ro = Store::open(&path, &StoreOptions::default().readonly(true)).unwrap();
    assert_eq!(kind(ro.begin_transaction()), StoreErrorKind::ReadOnly);
    let r: Result<(), StoreError> = ro.transaction(|_| Ok(()));
    assert_eq!(kind(r), StoreErrorKind::ReadOnly);
}

/// Dropping a store inside a transaction, or a panic in the closure,
/// aborts it and releases the write lock.
#[test]
fn a_drop_or_a_panic_aborts_and_releases_the_lock() {
    let (_d, path) = tmp();
    let mut s = open(&path);
    s.begin_transaction().unwrap();
    s.put("dropped", doc_of(1)).unwrap();
    drop(s);
    let mut s = open(&path);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _: Result<(), StoreError> = s.transaction(|s| {
            s.put("panicked", doc_of(2))?;
            panic!("in the transaction");
        });
    }));
    assert!(r.is_err());
    assert!(!s.in_transaction() && !s.is_dirty());
    // Another thread can write: the lock was released.
    std::thread::scope(|t| {
        t.spawn(|| {
            let mut o = open(&path);
            o.put("after", doc_of(3)).unwrap();
            o.flush().unwrap();
        });
    });
    s.reload().unwrap();
    assert_eq!(num(&s, "dropped"), None);
    assert_eq!(num(&s, "panicked"), None);
    assert_eq!(num(&s, "after"), Some(3));
}

/// Writers in several threads (each its own Store) that increment one
/// counter in transactions lose no update; a transaction may be ended
/// in another thread than the one that began it.
#[test]
fn concurrent_increments_lose_nothing() {
    let (_d, path) = tmp();
    std::thread::scope(|t| {
        for _ in 0..3 {
            t.spawn(|| {
                let mut s = open(&path);
                for _ in 0..100 {
                    increment(&mut s, "n").unwrap();
                }
            });
        }
    });
    let mut s = open(&path);
    assert_eq!(num(&s, "n"), Some(300));
    s.begin_transaction().unwrap();
    s.put("n", doc_of(301)).unwrap();
    let s = std::thread::spawn(move || {
        s.commit_transaction().unwrap();
        s
    })
    .join()
    .unwrap();
    assert_eq!(num(&s, "n"), Some(301));
    assert_eq!(num(&open(&path), "n"), Some(301));
}

/// A transaction whose changes do not fit in the map grows it (the lock
/// is released for a moment, and nobody committed meanwhile).
#[test]
fn a_transaction_grows_the_map() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default().map_size(1 << 20)).unwrap();
    let size = s.map_size();
    let big = {
        let mut e = roving::Encoder::new();
        e.bytes(&vec![7u8; 300_000]).unwrap();
        e.finish().unwrap()
    };
    s.transaction(|s| {
        for i in 0..8 {
            s.put(&format!("big{i}"), big.clone())?;
        }
        Ok::<_, StoreError>(())
    })
    .unwrap();
    assert!(s.map_size() > size);
    assert_eq!(open(&path).len().unwrap(), 8);
}
