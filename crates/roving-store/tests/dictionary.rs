//! The store-wide dictionary: records written against it, its rows
//! committed with them, stores that grow it at once, stores without one,
//! and `compact`.

use roving::{Document, Encoder};
use roving_store::{Store, StoreErrorKind, StoreOptions};

/// A map `{keys[0]: n, keys[1]: n + 1, ...}` written against the store's
/// dictionary, which learns its shape.
fn bound_record(store: &mut Store, keys: &[&str], n: i64) -> Vec<u8> {
    let mut enc = Encoder::with_dictionary(store.dictionary());
    enc.begin_map().unwrap();
    for (i, k) in keys.iter().enumerate() {
        enc.key(k).unwrap();
        enc.i64(n + i as i64).unwrap();
    }
    enc.end_map().unwrap();
    store.grow_dictionary(&enc);
    enc.finish().unwrap()
}

/// A plain map, as stores without a dictionary hold.
fn plain_record(keys: &[&str], n: i64) -> Vec<u8> {
    let mut enc = Encoder::new();
    enc.begin_map().unwrap();
    for (i, k) in keys.iter().enumerate() {
        enc.key(k).unwrap();
        enc.i64(n + i as i64).unwrap();
    }
    enc.end_map().unwrap();
    enc.finish().unwrap()
}

fn check(store: &Store, key: &str, keys: &[&str], n: i64) {
    let doc = store
        .get(key)
        .unwrap()
        .unwrap_or_else(|| panic!("{key} missing"));
    let mut scratch = Vec::new();
    let again = store.get_with(key, &mut scratch).unwrap().unwrap();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(
            doc.root().get(k).and_then(|v| v.as_i64()),
            Some(n + i as i64),
            "{key}.{k}"
        );
        assert_eq!(
            again.root().get(k).and_then(|v| v.as_i64()),
            Some(n + i as i64),
            "{key}.{k}"
        );
    }
    let rec = store.record(key).unwrap().unwrap();
    let d = rec.document().unwrap();
    assert_eq!(
        d.root().get(keys[0]).and_then(|v| v.as_i64()),
        Some(n),
        "{key}"
    );
}

const SHAPE: [&str; 3] = ["name", "price", "views"];
const OTHER: [&str; 2] = ["alpha", "beta"];

#[test]
fn records_written_against_the_dictionary_read_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rvs");
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert!(s.dictionary().is_empty());
    let first = bound_record(&mut s, &SHAPE, 0);
    s.put("k0", first.clone()).unwrap();
    let second = bound_record(&mut s, &SHAPE, 10);
    assert!(
        second.len() < first.len(),
        "{} {}",
        second.len(),
        first.len()
    );
    s.put("k1", second).unwrap();
    check(&s, "k1", &SHAPE, 10); // pending, bound
    s.flush().unwrap();
    check(&s, "k0", &SHAPE, 0);
    check(&s, "k1", &SHAPE, 10);
    assert_eq!(s.dictionary().len(), 1);
    drop(s);

    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(s.dictionary().len(), 1);
    check(&s, "k1", &SHAPE, 10);
    for i in 2..50 {
        let keys: &[&str] = if i % 2 == 0 { &SHAPE } else { &OTHER };
        let r = bound_record(&mut s, keys, i);
        s.put(&format!("k{i:02}"), r).unwrap();
    }
    s.flush().unwrap();
    assert_eq!(s.dictionary().len(), 2);
    assert_eq!(s.verify().unwrap(), 50);
    let n = s.iter().inspect(|r| assert!(r.is_ok())).count();
    assert_eq!(n, 50);
    drop(s);
    let ro = Store::open(&path, &StoreOptions::default().readonly(true)).unwrap();
    check(&ro, "k03", &OTHER, 3);
    check(&ro, "k04", &SHAPE, 4);
}

/// Two stores of one file grow the dictionary at once, each with its own
/// shapes: the second flush finds the first one's entries, writes its
/// records again against the merged dictionary, and every record reads.
#[test]
fn two_writers_grow_the_dictionary_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rvs");
    let mut a = Store::open(&path, &StoreOptions::default()).unwrap();
    let mut b = Store::open(&path, &StoreOptions::default()).unwrap();
    for i in 0..20 {
        let r = bound_record(&mut a, &SHAPE, i);
        a.put(&format!("a{i:02}"), r).unwrap();
        let r = bound_record(&mut b, &OTHER, i);
        b.put(&format!("b{i:02}"), r).unwrap();
    }
    a.flush().unwrap();
    b.flush().unwrap();
    assert_eq!(b.dictionary().len(), 2);
    a.reload().unwrap();
    for s in [&a, &b] {
        assert_eq!(s.verify().unwrap(), 40);
        for i in 0..20 {
            check(s, &format!("a{i:02}"), &SHAPE, i);
            check(s, &format!("b{i:02}"), &OTHER, i);
        }
    }
    // b's records were written again against the merged dictionary: bound
    // to both entries, and still small.
    let small = b.get_bytes("b05").unwrap().unwrap().len();
    assert!(small < plain_record(&OTHER, 5).len(), "{small}");
    drop((a, b));
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(s.verify().unwrap(), 40);
}

/// A store of plain records (as every store written before the dictionary
/// existed) opens and reads; new records grow a dictionary in it, and
/// `compact` rewrites the old ones against it.
#[test]
fn a_store_without_a_dictionary_opens_and_compacts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rvs");
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    for i in 0..300 {
        s.put(&format!("p{i:03}"), plain_record(&SHAPE, i)).unwrap();
    }
    s.flush().unwrap();
    drop(s);
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert!(s.dictionary().is_empty());
    check(&s, "p007", &SHAPE, 7);
    let r = bound_record(&mut s, &OTHER, 1);
    s.put("new", r).unwrap();
    s.flush().unwrap();
    let before: usize = s
        .raw_iter_from(std::ops::Bound::Unbounded)
        .map(|r| r.unwrap().1.len())
        .sum();
    // The 300 plain records, and "new", written when the dictionary was
    // empty (so carrying its shape, which the dictionary then learned).
    assert_eq!(s.compact().unwrap(), 301);
    let after: usize = s
        .raw_iter_from(std::ops::Bound::Unbounded)
        .map(|r| r.unwrap().1.len())
        .sum();
    assert!(after < before, "{after} {before}");
    assert_eq!(s.verify().unwrap(), 301);
    check(&s, "p299", &SHAPE, 299);
    check(&s, "new", &OTHER, 1);
    assert_eq!(s.compact().unwrap(), 0); // nothing left to rewrite
    drop(s);
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    check(&s, "p123", &SHAPE, 123);
}

/// A transaction commits the entries its records need with them.
#[test]
fn a_transaction_grows_the_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rvs");
    let mut a = Store::open(&path, &StoreOptions::default()).unwrap();
    let mut b = Store::open(&path, &StoreOptions::default()).unwrap();
    let r = bound_record(&mut b, &OTHER, 0);
    b.put("b", r).unwrap();
    b.flush().unwrap();
    a.transaction(|s| {
        assert_eq!(s.dictionary().len(), 1); // read at begin
        let r = bound_record(s, &SHAPE, 0);
        s.put("a", r)
    })
    .unwrap();
    drop((a, b));
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(s.dictionary().len(), 2);
    check(&s, "a", &SHAPE, 0);
    check(&s, "b", &OTHER, 0);
}

/// A record bound to entries the store's dictionary lacks fails when put,
/// naming the dictionary it needs.
#[test]
fn a_record_of_another_dictionary_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let mut other = roving::Dictionary::new();
    other.add_shape(&["x"]).unwrap();
    let mut enc = Encoder::with_dictionary(&other);
    enc.begin_map().unwrap();
    enc.key("x").unwrap();
    enc.i64(1).unwrap();
    enc.end_map().unwrap();
    let doc = enc.finish().unwrap();
    assert!(Document::open(&doc).is_err());
    let e = s.put("k", doc).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::InvalidDocument, "{e}");
    assert!(
        e.to_string().contains(&format!("{:016x}", other.id())),
        "{e}"
    );
}

/// A committed record that needs entries the store's dictionary lacks
/// (only a damaged store, or a `put_trusted` that broke its contract, has
/// one) is a `Corrupt` error naming the dictionary it needs, never a
/// wrong value.
#[test]
fn a_record_needing_missing_entries_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let mut other = roving::Dictionary::new();
    other.add_shape(&["x"]).unwrap();
    let mut enc = Encoder::with_dictionary(&other);
    enc.begin_map().unwrap();
    enc.key("x").unwrap();
    enc.i64(1).unwrap();
    enc.end_map().unwrap();
    let doc = enc.finish().unwrap();
    // SAFETY: a valid document of another dictionary (not one the store's
    // accepts: the contract is broken on purpose, to commit such a
    // record); the store reads every record bound to a dictionary through
    // `Document::open_with`, which validates it, never `open_trusted`.
    unsafe { s.put_trusted("k", doc) }.unwrap();
    s.flush().unwrap();
    let id = format!("{:016x}", other.id());
    let e = s.get("k").unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Corrupt, "{e}");
    assert!(
        e.to_string().contains(&id) && e.to_string().contains("\"k\""),
        "{e}"
    );
    let e = s.get_with("k", &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::Corrupt, "{e}");
    assert!(s.record("k").is_err());
    assert_eq!(s.verify().unwrap_err().kind(), StoreErrorKind::Corrupt);
    assert!(s.iter().any(|r| r.is_err()));
}

/// A store of ever new shapes stops growing its dictionary once the base
/// reaches `AUTO_GROWTH_MAX_BASE` (reading a bound record copies and
/// validates the base): later records keep their shapes, and all read.
#[test]
fn the_dictionary_stops_growing_at_its_base_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let names: Vec<[String; 3]> = (0..200)
        .map(|i| [0, 1, 2].map(|j| format!("field_{i}_{j}")))
        .collect();
    for (i, keys) in names.iter().enumerate() {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let r = bound_record(&mut s, &keys, i as i64);
        s.put(&format!("k{i:03}"), r).unwrap();
    }
    s.flush().unwrap();
    let limit = roving::dictionary::AUTO_GROWTH_MAX_BASE;
    let (len, base) = (s.dictionary().len(), s.dictionary().base_len());
    assert!(len > 10 && len < 200, "{len} entries");
    // It stopped at the first growth past the limit (one shape's bytes).
    assert!(base >= limit && base < limit + 64, "{base} bytes of base");
    for (i, keys) in names.iter().enumerate() {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        check(&s, &format!("k{i:03}"), &keys, i as i64);
    }
    assert_eq!(s.verify().unwrap(), 200);
}

/// `{"n": n, "state": state}` written against the store's dictionary.
fn record_with_state(store: &mut Store, n: i64, state: &str) -> Vec<u8> {
    let mut enc = Encoder::with_dictionary(store.dictionary());
    enc.begin_map().unwrap();
    enc.key("n").unwrap();
    enc.i64(n).unwrap();
    enc.key("state").unwrap();
    enc.str(state).unwrap();
    enc.end_map().unwrap();
    store.grow_dictionary(&enc);
    enc.finish().unwrap()
}

fn state_of(store: &Store, key: &str) -> (i64, String) {
    let doc = store.get(key).unwrap().unwrap();
    let root = doc.root();
    (
        root.get("n").and_then(|v| v.as_i64()).unwrap(),
        root.get("state")
            .and_then(|v| v.as_str())
            .unwrap()
            .to_owned(),
    )
}

/// A value that many records repeat becomes a dictionary entry, committed
/// with them: later records refer to it, and every record reads the same
/// after reopening.
#[test]
fn a_recurring_value_becomes_a_dictionary_string() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rvs");
    let state = |i: i64| {
        if i % 2 == 0 {
            "shipped to the customer"
        } else {
            format!("unique {i}").leak()
        }
    };
    let mut sizes = Vec::new();
    {
        let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
        for i in 0..100 {
            let r = record_with_state(&mut s, i, state(i));
            sizes.push(r.len());
            s.put(&format!("k{i:03}"), r).unwrap();
        }
        s.flush().unwrap();
    }
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    let strings: Vec<&str> = s
        .dictionary()
        .entries()
        .iter()
        .filter_map(|e| match e {
            roving::dictionary::Entry::Str(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(strings, vec!["shipped to the customer"]);
    assert!(sizes[98] + 20 <= sizes[0], "{sizes:?}");
    for i in 0..100 {
        assert_eq!(state_of(&s, &format!("k{i:03}")), (i, state(i).to_owned()));
    }
    assert_eq!(s.verify().unwrap(), 100);
}

/// `compact` learns recurring values too: a store written without a
/// dictionary gets the shape and the value as entries, and reads the same.
#[test]
fn compact_learns_recurring_values() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    for i in 0..50 {
        let mut enc = Encoder::new();
        enc.begin_map().unwrap();
        enc.key("n").unwrap();
        enc.i64(i).unwrap();
        enc.key("state").unwrap();
        enc.str("waiting for the courier").unwrap();
        enc.end_map().unwrap();
        s.put(&format!("k{i:03}"), enc.finish().unwrap()).unwrap();
    }
    s.flush().unwrap();
    assert_eq!(s.compact().unwrap(), 50);
    let entries = s.dictionary().entries();
    assert_eq!(entries.len(), 2, "the shape and the string");
    assert!(entries.contains(&roving::dictionary::Entry::Str(
        "waiting for the courier".to_owned()
    )));
    for i in 0..50 {
        assert_eq!(
            state_of(&s, &format!("k{i:03}")),
            (i, "waiting for the courier".to_owned())
        );
    }
}
