//! Pending changes and commits: a flush commits what is pending (one
//! transaction id per commit, none for nothing), `reload` drops it, and a
//! store dropped without a flush keeps none of it.

mod common;

use roving_store::{Store, StoreOptions};

use common::{doc_of, tmp};

/// A snapshot's transaction id grows by one with each commit (a flush
/// with pending changes); a flush with nothing pending commits nothing.
#[test]
fn transaction_ids_grow_by_one_per_commit() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    let id = |s: &Store| s.snapshot().unwrap().txn_id();
    let start = id(&s);
    for i in 1..=3 {
        s.put("k", doc_of(i)).unwrap();
        s.flush().unwrap();
        assert_eq!(id(&s), start + i as usize);
    }
    s.flush().unwrap();
    assert_eq!(id(&s), start + 3);
    // Another handle's commit counts too, seen after a reload.
    let mut other = Store::open(&path, &StoreOptions::default()).unwrap();
    other.put("j", doc_of(9)).unwrap();
    other.flush().unwrap();
    assert_eq!(id(&s), start + 3);
    s.reload().unwrap();
    assert_eq!(id(&s), start + 4);
}

/// `reload` drops pending changes; `get_bytes` returns a pending value's
/// bytes as put; `is_dirty` and `pending_len` count pending keys.
#[test]
fn pending_changes_are_as_documented() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    s.put("a", doc_of(1)).unwrap();
    s.flush().unwrap();
    s.put("b", doc_of(2)).unwrap();
    s.put("b", doc_of(3)).unwrap();
    assert!(s.delete("a").unwrap());
    assert!(s.is_dirty());
    assert_eq!(s.pending_len(), 2);
    assert_eq!(s.get_bytes("b").unwrap(), Some(&doc_of(3)[..]));
    assert_eq!(s.len().unwrap(), 1);
    s.reload().unwrap();
    assert!(!s.is_dirty());
    assert_eq!(s.len().unwrap(), 1);
    assert!(s.contains("a").unwrap() && !s.contains("b").unwrap());
}

/// A store dropped with pending changes keeps none of them: there is no
/// flush on drop.
#[test]
fn a_dropped_store_drops_its_pending_changes() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    s.put("kept", doc_of(1)).unwrap();
    s.flush().unwrap();
    s.put("lost", doc_of(2)).unwrap();
    assert!(s.delete("kept").unwrap());
    drop(s);
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert!(s.contains("kept").unwrap());
    assert!(!s.contains("lost").unwrap());
}
