//! Pending changes past the memory limit are spilled to unnamed temporary
//! files, and the store behaves exactly as with changes in memory: reads
//! see them, a flush commits all of them or none, `reload` and a drop
//! without a flush drop them, and other stores see only committed data.
//! The limit is lowered here (`set_pending_memory`) so that a few
//! thousand records spill.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound;

use roving_store::{Store, StoreOptions};

use common::{doc_of, tmp};

/// Spill past this many bytes of pending changes (estimated).
const LIMIT: usize = 16 << 10;

fn open(path: &std::path::Path) -> Store {
    let mut s = Store::open(path, &StoreOptions::default().sync(false)).unwrap();
    s.set_pending_memory(LIMIT);
    s
}

fn n_of(s: &Store, key: &str) -> Option<u64> {
    s.get(key).unwrap().map(|d| d.root().as_u64().unwrap())
}

/// Every record of `s` in key order, with its number.
fn contents(s: &Store) -> Vec<(String, u64)> {
    s.iter()
        .map(|r| {
            let (k, d) = r.unwrap();
            (k.to_owned(), d.root().as_u64().unwrap())
        })
        .collect()
}

fn model_contents(m: &BTreeMap<String, u64>) -> Vec<(String, u64)> {
    m.iter().map(|(k, v)| (k.clone(), *v)).collect()
}

/// Put, overwrite, delete, get, contains, len and iteration with changes
/// spilled, then a flush, against a model.
#[test]
fn spilled_changes_read_and_flush_as_in_memory() {
    let (_d, path) = tmp();
    let mut s = open(&path);
    let mut model = BTreeMap::new();
    for i in 0..300u64 {
        s.put(&format!("c{i:04}"), doc_of(i)).unwrap();
        model.insert(format!("c{i:04}"), i);
    }
    s.flush().unwrap();
    assert!(!s.pending_spilled());
    let committed = model.clone();
    for i in 0..5000u64 {
        let k = format!("k{}", i * 7919 % 5000);
        s.put(&k, doc_of(i)).unwrap();
        model.insert(k, i);
    }
    assert!(s.pending_spilled(), "5000 records spill past {LIMIT} bytes");
    // Overwrites of spilled values, of committed ones, deletions of both,
    // of a value put and deleted again, and of missing keys.
    for i in (0..5000u64).step_by(3) {
        s.put(&format!("k{i}"), doc_of(i + 100_000)).unwrap();
        model.insert(format!("k{i}"), i + 100_000);
    }
    for i in (0..300u64).step_by(2) {
        s.put(&format!("c{i:04}"), doc_of(i + 200_000)).unwrap();
        model.insert(format!("c{i:04}"), i + 200_000);
    }
    for i in (0..5000u64).step_by(5) {
        assert!(s.delete(&format!("k{i}")).unwrap());
        model.remove(&format!("k{i}"));
        assert!(!s.delete(&format!("k{i}")).unwrap());
    }
    for i in (1..300u64).step_by(3) {
        assert!(s.delete(&format!("c{i:04}")).unwrap());
        model.remove(&format!("c{i:04}"));
    }
    assert!(!s.delete("missing").unwrap());
    s.put("k5", doc_of(5)).unwrap();
    assert!(s.delete("k5").unwrap());
    model.remove("k5");
    for k in [
        "k1", "k3", "k5", "k10", "k4999", "c0000", "c0001", "c0002", "zz",
    ] {
        assert_eq!(n_of(&s, k), model.get(k).copied(), "{k}");
        assert_eq!(s.contains(k).unwrap(), model.contains_key(k), "{k}");
        assert_eq!(
            s.get_bytes(k).unwrap().is_some(),
            model.contains_key(k),
            "{k}"
        );
    }
    assert_eq!(s.len().unwrap(), model.len() as u64);
    assert_eq!(contents(&s), model_contents(&model));
    for start in ["c0150", "k2", "k4999", "a", "z"] {
        let got: Vec<String> = s
            .iter_from(Bound::Excluded(start))
            .map(|r| r.unwrap().0.to_owned())
            .collect();
        let want: Vec<String> = model
            .range::<str, _>((Bound::Excluded(start), Bound::Unbounded))
            .map(|(k, _)| k.clone())
            .collect();
        assert_eq!(got, want, "from {start}");
    }
    // Keys with a pending change: the k* put and not deleted again (a
    // deletion of a key that is not committed leaves no change), and the
    // c* changed (put or deleted).
    let changed_c = (0..300u64).filter(|i| i % 2 == 0 || i % 3 == 1).count();
    assert_eq!(s.pending_len(), 4000 + changed_c);

    // Another store of the file sees only what is committed.
    let other = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(contents(&other), model_contents(&committed));

    s.flush().unwrap();
    assert!(!s.is_dirty() && !s.pending_spilled());
    assert_eq!(contents(&s), model_contents(&model));
    drop((s, other));
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(contents(&s), model_contents(&model));
    assert_eq!(s.verify().unwrap(), model.len() as u64);
}

/// `reload` and a drop without a flush drop spilled changes; the store
/// goes on spilling and flushing afterwards.
#[test]
fn reload_and_drop_drop_spilled_changes() {
    let (_d, path) = tmp();
    let mut s = open(&path);
    s.put("kept", doc_of(1)).unwrap();
    s.flush().unwrap();
    for i in 0..3000u64 {
        s.put(&format!("k{i}"), doc_of(i)).unwrap();
    }
    assert!(s.delete("kept").unwrap());
    assert!(s.pending_spilled());
    s.reload().unwrap();
    assert!(!s.is_dirty() && !s.pending_spilled());
    assert_eq!(contents(&s), [("kept".to_owned(), 1)]);

    for i in 0..3000u64 {
        s.put(&format!("k{i}"), doc_of(i)).unwrap();
    }
    assert!(s.delete("kept").unwrap());
    assert!(s.pending_spilled());
    drop(s);
    let mut s = open(&path);
    assert_eq!(contents(&s), [("kept".to_owned(), 1)]);

    for i in 0..3000u64 {
        s.put(&format!("k{i}"), doc_of(i)).unwrap();
    }
    s.flush().unwrap();
    assert_eq!(s.len().unwrap(), 3001);
}

/// Spilled changes are in unnamed files: nothing beside the store while
/// they are pending, nothing left after a flush or a drop.
#[test]
fn spilled_changes_leave_no_file() {
    let (d, path) = tmp();
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let mut s = open(&path);
    for i in 0..3000u64 {
        s.put(&format!("k{i}"), doc_of(i)).unwrap();
    }
    assert!(s.pending_spilled());
    assert_eq!(names(), ["test.rvs", "test.rvs-lock"]);
    s.flush().unwrap();
    drop(s);
    assert_eq!(names(), ["test.rvs", "test.rvs-lock"]);
}

/// Records lent from spilled changes keep their bytes after the flush or
/// reload that dropped the changes.
#[test]
fn records_of_spilled_changes_outlive_the_changes() {
    let (_d, path) = tmp();
    let mut s = open(&path);
    for i in 0..3000u64 {
        s.put(&format!("k{i}"), doc_of(i)).unwrap();
    }
    assert!(s.pending_spilled());
    let early = s.record("k7").unwrap().unwrap();
    assert!(early.is_pending());
    s.flush().unwrap();
    for i in 0..3000u64 {
        s.put(&format!("k{i}"), doc_of(i + 1)).unwrap();
    }
    let late = s.record("k7").unwrap().unwrap();
    s.reload().unwrap();
    let n = |r: &roving_store::Record| r.document().unwrap().root().as_u64();
    assert_eq!((n(&early), n(&late)), (Some(7), Some(8)));
    assert_eq!(n_of(&s, "k7"), Some(7));
}

/// Spilled changes hold no lock: another store of the file, in the same
/// thread, flushes while they are pending (last flush wins, key by key).
#[test]
fn another_store_flushes_while_changes_are_spilled() {
    let (_d, path) = tmp();
    let mut a = open(&path);
    let mut b = Store::open(&path, &StoreOptions::default().sync(false)).unwrap();
    for i in 0..3000u64 {
        a.put(&format!("k{i}"), doc_of(i)).unwrap();
    }
    assert!(a.pending_spilled());
    b.put("k1", doc_of(999)).unwrap();
    b.put("b", doc_of(1)).unwrap();
    b.flush().unwrap();
    assert_eq!(n_of(&a, "k1"), Some(1));
    assert_eq!(n_of(&a, "b"), None, "a reads its own snapshot");
    a.flush().unwrap();
    assert_eq!(n_of(&a, "k1"), Some(1));
    assert_eq!(n_of(&a, "b"), Some(1));
    assert_eq!(a.len().unwrap(), 3001);
}

/// A flush of spilled changes larger than the map grows the map.
#[test]
fn spilled_changes_grow_the_map() {
    let (_d, path) = tmp();
    let mut s = Store::open(
        &path,
        &StoreOptions::default().map_size(1 << 20).sync(false),
    )
    .unwrap();
    s.set_pending_memory(1 << 20);
    let big = |i: u64| {
        let mut e = roving::Encoder::new();
        e.str(&format!("{i}-{}", "x".repeat(3000))).unwrap();
        e.finish().unwrap()
    };
    for i in 0..2000u64 {
        s.put(&format!("k{i:05}"), big(i)).unwrap();
    }
    assert!(s.pending_spilled());
    s.flush().unwrap();
    assert!(s.map_size() > 1 << 20);
    assert_eq!(s.len().unwrap(), 2000);
    assert_eq!(s.get_bytes("k01234").unwrap(), Some(&big(1234)[..]));
}

/// Random operations with a tiny limit (spilling, and merging runs, many
/// times), checked against a model, as `model_random_operations` does in
/// memory.
#[test]
fn random_operations_with_spilling() {
    let (_d, path) = tmp();
    let mut s = open(&path);
    s.set_pending_memory(4 << 10);
    let mut committed: BTreeMap<String, u64> = BTreeMap::new();
    let mut model = committed.clone();
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut below = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut spills = 0;
    for step in 0..12_000u64 {
        spills += usize::from(s.pending_spilled());
        let key = format!("k{:04}", below(1500));
        match below(100) {
            0..=59 => {
                s.put(&key, doc_of(step)).unwrap();
                model.insert(key, step);
            }
            60..=84 => {
                let had = s.delete(&key).unwrap();
                assert_eq!(had, model.remove(&key).is_some(), "{key}");
            }
            85..=95 => {
                assert_eq!(n_of(&s, &key), model.get(&key).copied(), "{key}");
            }
            96..=97 => {
                s.flush().unwrap();
                committed = model.clone();
            }
            98 => {
                s.reload().unwrap();
                model = committed.clone();
            }
            _ => {
                let from: Vec<String> = s
                    .iter_from(Bound::Included(&key))
                    .map(|r| r.unwrap().0.to_owned())
                    .collect();
                let want: Vec<String> = model
                    .range::<String, _>((Bound::Included(&key), Bound::Unbounded))
                    .map(|(k, _)| k.clone())
                    .collect();
                assert_eq!(from, want);
            }
        }
        if step % 1000 == 0 {
            assert_eq!(s.len().unwrap(), model.len() as u64);
            assert_eq!(contents(&s), model_contents(&model));
        }
    }
    assert!(spills > 2000, "spilled in {spills} steps of 12000");
    s.flush().unwrap();
    drop(s);
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(contents(&s), model_contents(&model));
}
