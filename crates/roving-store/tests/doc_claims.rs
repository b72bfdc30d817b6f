//! What the crate documentation states as fact, checked where no other
//! test pins the claim as stated: option defaults, map size rounding, the
//! key limit and order, transaction ids, and error names and text.

use std::ops::Bound;

use roving_store::{Store, StoreError, StoreErrorKind, StoreOptions, MAX_READERS};

fn doc_of(n: u64) -> Vec<u8> {
    let mut e = roving::Encoder::new();
    e.u64(n).unwrap();
    e.finish().unwrap()
}

fn tmp() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("claims.rvs");
    (dir, p)
}

/// `StoreOptions` defaults: read-write, a 1 GiB map, synced commits, 510
/// reader slots, no page walk, no populate; `new()` is `default()`; the
/// setters set what they name.
#[test]
fn option_defaults_are_as_documented() {
    let o = StoreOptions::default();
    assert!(!o.readonly);
    assert!(o.create);
    assert_eq!(o.map_size, 1 << 30);
    assert!(o.sync);
    assert_eq!(o.max_readers, 510);
    assert!(!o.verify_pages);
    assert!(!o.populate);
    assert_eq!(format!("{:?}", StoreOptions::new()), format!("{o:?}"));
    let o = StoreOptions::new()
        .readonly(true)
        .map_size(5)
        .sync(false)
        .max_readers(7)
        .verify_pages(true)
        .populate(true)
        .create(false);
    assert!(o.readonly && !o.sync && o.verify_pages && o.populate && !o.create);
    assert_eq!((o.map_size, o.max_readers), (5, 7));
    assert_eq!(MAX_READERS, 1 << 20);
}

/// The map size is rounded up to a whole MiB (and a new store's map is
/// what was asked, so rounded).
#[test]
fn map_sizes_are_rounded_up_to_a_mebibyte() {
    for (asked, got) in [
        (1usize, 1usize << 20),
        (1 << 20, 1 << 20),
        ((1 << 20) + 1, 2 << 20),
        ((3 << 20) - 7, 3 << 20),
    ] {
        let (_d, path) = tmp();
        let s = Store::open(&path, &StoreOptions::default().map_size(asked)).unwrap();
        assert_eq!(s.map_size(), got, "asked {asked}");
    }
}

/// Reopened with a smaller `map_size`, a store's map is at least what the
/// data in its file takes, not the map size it was last used with (LMDB
/// keeps the size asked for if the data fits; the docs said "at least the
/// size recorded in the file", which it is not).
#[test]
fn a_reopened_store_maps_at_least_its_data() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default().map_size(16 << 20)).unwrap();
    let text = "x".repeat(100_000);
    for i in 0..40 {
        let mut e = roving::Encoder::new();
        e.str(&format!("{i}{text}")).unwrap();
        s.put(&format!("k{i}"), e.finish().unwrap()).unwrap();
    }
    s.flush().unwrap();
    drop(s);
    let file = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(file > 4_000_000, "{file}");
    let mut s = Store::open(&path, &StoreOptions::default().map_size(1 << 20)).unwrap();
    assert!(s.map_size() >= 4_000_000, "{}", s.map_size());
    assert!(s.map_size() < 16 << 20, "{}", s.map_size());
    assert_eq!(s.verify().unwrap(), 40);
    // And it grows again by itself.
    for i in 40..80 {
        let mut e = roving::Encoder::new();
        e.str(&format!("{i}{text}")).unwrap();
        s.put(&format!("k{i}"), e.finish().unwrap()).unwrap();
    }
    s.flush().unwrap();
    assert_eq!(s.len().unwrap(), 80);
}

/// Keys are 1 to 511 bytes of UTF-8 (`max_key_len`), counted in bytes,
/// sorted by their bytes (so by code point); `delete` of a key that
/// cannot exist says it was not there.
#[test]
fn keys_are_as_documented() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(s.max_key_len(), 511);
    // 255 two-byte characters and one byte: 511 bytes.
    let longest = format!("{}x", "é".repeat(255));
    assert_eq!(longest.len(), 511);
    s.put(&longest, doc_of(0)).unwrap();
    let e = s.put(&format!("{longest}x"), doc_of(0)).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::InvalidKey);
    for (i, k) in ["z", "é", "B", "a", "\u{10000}", "\u{ffff}", "aa"]
        .iter()
        .enumerate()
    {
        s.put(k, doc_of(i as u64 + 1)).unwrap();
    }
    s.flush().unwrap();
    let keys: Vec<String> = s.iter().map(|r| r.unwrap().0.to_string()).collect();
    let mut want = vec!["z", "é", "B", "a", "\u{10000}", "\u{ffff}", "aa", &longest];
    want.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    assert_eq!(keys, want);
    // Byte order is code point order.
    let mut by_chars = want.clone();
    by_chars.sort_by(|a, b| a.chars().cmp(b.chars()));
    assert_eq!(by_chars, want);
    // Resuming after a key.
    let after: Vec<String> = s
        .iter_from(Bound::Excluded("a"))
        .map(|r| r.unwrap().0.to_string())
        .collect();
    assert_eq!(
        after,
        want[want.iter().position(|k| *k == "a").unwrap() + 1..]
    );
    assert!(!s.delete("").unwrap());
    assert!(!s.delete(&"k".repeat(512)).unwrap());
    assert!(s.delete("z").unwrap());
    assert!(!s.delete("z").unwrap());
}

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

/// Error kinds' names, and the text of an error: `store PATH: message`
/// once the path is known.
#[test]
fn error_names_and_text() {
    let names = [
        (StoreErrorKind::NotFound, "not-found"),
        (StoreErrorKind::NotAStore, "not-a-store"),
        (StoreErrorKind::Corrupt, "corrupt"),
        (StoreErrorKind::InvalidKey, "invalid-key"),
        (StoreErrorKind::InvalidDocument, "invalid-document"),
        (StoreErrorKind::ReadOnly, "read-only"),
        (StoreErrorKind::Busy, "busy"),
        (StoreErrorKind::Closed, "closed"),
        (StoreErrorKind::PermissionDenied, "permission-denied"),
        (StoreErrorKind::TooLarge, "too-large"),
        (StoreErrorKind::Io, "io"),
        (StoreErrorKind::Lmdb, "lmdb"),
        (StoreErrorKind::Document, "document"),
    ];
    for (kind, name) in names {
        assert_eq!(kind.name(), name);
    }
    let e = StoreError::new(StoreErrorKind::Busy, "wait");
    assert_eq!(e.to_string(), "wait");
    let p = std::path::Path::new("/x/y.rvs");
    let e = e.with_path(p).with_path(std::path::Path::new("/other"));
    assert_eq!(e.to_string(), "store /x/y.rvs: wait");
    assert_eq!((e.message(), e.path()), ("wait", Some(p)));
    // A read-only open of a missing store is NotFound, and names the path.
    let (d, path) = tmp();
    let e = Store::open(&path, &StoreOptions::default().readonly(true)).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound);
    assert!(e.to_string().starts_with("store "), "{e}");
    // So is an open with `create(false)`, which makes nothing, and opens
    // the store once there is one, for writing.
    let no_create = StoreOptions::default().create(false);
    let e = Store::open(&path, &no_create).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound, "{e}");
    assert!(!path.exists());
    let empty_dir = d.path().join("empty");
    std::fs::create_dir(&empty_dir).unwrap();
    let e = Store::open(&empty_dir, &no_create).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound, "{e}");
    assert_eq!(std::fs::read_dir(&empty_dir).unwrap().count(), 0);
    drop(Store::open(&path, &StoreOptions::default()).unwrap());
    let mut s = Store::open(&path, &no_create).unwrap();
    s.put("k", roving::to_vec(&1).unwrap()).unwrap();
    s.flush().unwrap();
    // So is an open in a directory that does not exist.
    let e = Store::open(d.path().join("no/such/dir.rvs"), &StoreOptions::default()).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound, "{e}");
}

/// Records lie at any byte offset in the map: a typed vector's zero-copy
/// slice needs alignment and is then `None` (never wrong), while `to_vec`
/// and `iter` read every record's vector.
#[test]
fn vectors_of_records_read_at_any_alignment() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    for i in 0..40 {
        let mut e = roving::Encoder::new();
        e.begin_map().unwrap();
        e.key("pad").unwrap();
        e.str(&"x".repeat(i)).unwrap();
        e.key("v").unwrap();
        e.vector(&[1.5f64, -2.0]).unwrap();
        e.end_map().unwrap();
        s.put(&format!("k{}", "y".repeat(i)), e.finish().unwrap())
            .unwrap();
    }
    s.flush().unwrap();
    let mut unaligned = 0;
    for r in s.iter() {
        let (_, doc) = r.unwrap();
        let v = doc.root().get("v").unwrap().as_vector().unwrap();
        assert_eq!(v.to_vec::<f64>(), Some(vec![1.5, -2.0]));
        assert_eq!(v.iter().count(), 2);
        match v.as_slice::<f64>() {
            Some(x) => assert_eq!(x, [1.5, -2.0]),
            None => unaligned += 1,
        }
    }
    assert!(unaligned > 0, "some records lie at unaligned addresses");
}
