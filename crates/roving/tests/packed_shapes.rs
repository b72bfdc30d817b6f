//! Packed shape records (`25`, FORMAT.md section 6.18): maps opened with
//! all their keys (`Encoder::begin_map_with_keys`) read back as any map,
//! validate, and damaged ones are refused.

use roving::{Document, Encoder};

/// A document of one map of `keys`, each key's value its index.
fn packed_map(keys: &[&str]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_map_with_keys(keys).unwrap();
    for i in 0..keys.len() {
        e.i64(i as i64).unwrap();
    }
    e.end_map().unwrap();
    e.finish().unwrap()
}

#[test]
fn packed_maps_read_back_at_every_size() {
    for n in [1usize, 2, 8, 9, 10, 16, 100, 254, 255, 256, 1000, 5000] {
        let owned: Vec<String> = (0..n).map(|i| format!("{}", i * 7919 % 100_003)).collect();
        let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        let bytes = packed_map(&keys);
        let doc = Document::open(&bytes).unwrap_or_else(|e| panic!("{n}: {e}"));
        let map = doc.root().as_map().unwrap();
        assert_eq!(map.len(), n);
        assert_eq!(map.keys().collect::<Vec<_>>(), keys, "{n}");
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(
                map.get(k).and_then(|v| v.as_i64()),
                Some(i as i64),
                "{n} {k}"
            );
            assert_eq!(map.position(k), Some(i));
        }
        assert!(map.get("absent").is_none());
        assert!(map.get("").is_none());
        // Block by block, the same keys.
        let mut read = Vec::new();
        map.packed_keys()
            .unwrap()
            .try_each(|k| {
                read.push(k.unwrap());
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(read, keys, "{n}");
        // The same map written key by key: the same value.
        let mut e = Encoder::new();
        e.begin_map().unwrap();
        for (i, k) in keys.iter().enumerate() {
            e.key(k).unwrap();
            e.i64(i as i64).unwrap();
        }
        e.end_map().unwrap();
        let plain = e.finish().unwrap();
        let other = Document::open(&plain).unwrap();
        assert_eq!(doc.root(), other.root(), "{n}");
        // (Its keys are a shape of slots: no packed keys.)
        assert!(other.root().as_map().unwrap().packed_keys().is_none());
        assert_eq!(
            roving::json::to_json(doc.root()).unwrap(),
            roving::json::to_json(other.root()).unwrap()
        );
    }
}

#[test]
fn the_spec_example_is_what_the_encoder_writes() {
    let bytes = packed_map(&["id", "", "b"]);
    let shape = [0x25, 3, 3, 0, 0, 2, 2, 3, b'i', b'd', b'b'];
    assert_eq!(&bytes[3..3 + shape.len()], shape, "{bytes:02x?}");
    assert_eq!(bytes[2], roving::layout::VERSION_2);
    let doc = Document::open(&bytes).unwrap();
    let map = doc.root().as_map().unwrap();
    assert_eq!(map.get("").and_then(|v| v.as_i64()), Some(1));
    assert_eq!(map.keys().collect::<Vec<_>>(), ["id", "", "b"]);
}

#[test]
fn equal_keys_are_refused_when_writing() {
    for keys in [
        vec!["a", "b", "a"],
        (0..20).map(|_| "k").collect::<Vec<_>>(),
    ] {
        let mut e = Encoder::new();
        let err = e.begin_map_with_keys(&keys).unwrap_err();
        assert_eq!(*err.kind(), roving::ErrorKind::DuplicateKey, "{err}");
    }
}

/// Position of the packed shape's key bytes in a document of
/// `packed_map(keys)` (keys of one byte each, fewer than 16).
fn key_data(_bytes: &[u8], n: usize) -> usize {
    // tag, n, L, widths, one start, n ends.
    3 + 4 + 1 + n
}

#[test]
fn damaged_packed_shapes_are_refused() {
    use roving::ErrorKind as K;
    // Two equal keys, with and without an index.
    for n in [3usize, 12] {
        let owned: Vec<String> = (0..n)
            .map(|i| ((b'a' + i as u8) as char).to_string())
            .collect();
        let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        let mut bytes = packed_map(&keys);
        let d = key_data(&bytes, n);
        assert_eq!(bytes[d], b'a');
        bytes[d + 1] = b'a';
        let err = Document::open(&bytes).unwrap_err();
        assert!(
            matches!(err.kind(), K::DuplicateKey | K::BadIndex),
            "{n}: {err}"
        );
    }
    // An index entry moved off its run (keys not in order, so that the
    // shape has an index).
    let owned: Vec<String> = (0..12)
        .rev()
        .map(|i| ((b'a' + i as u8) as char).to_string())
        .collect();
    let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let good = packed_map(&keys);
    let index = key_data(&good, 12) + 12;
    let t = roving::layout::dense_table_size(12);
    let full: Vec<usize> = (0..t).filter(|&i| good[index + i] != 0).collect();
    let empty: Vec<usize> = (0..t).filter(|&i| good[index + i] == 0).collect();
    let mut refused = 0;
    for &f in &full {
        for &e in &empty {
            let mut bad = good.clone();
            bad.swap(index + f, index + e);
            if Document::open(&bad).is_err() {
                refused += 1;
            } else {
                // Still a valid table (the key's home allows it): every key found.
                let doc = Document::open(&bad).unwrap();
                let map = doc.root().as_map().unwrap();
                for (i, k) in keys.iter().enumerate() {
                    assert_eq!(map.get(k).and_then(|v| v.as_i64()), Some(i as i64));
                }
            }
        }
    }
    assert!(refused > 0);
    // In a version 1 document the tag is undefined.
    let mut v1 = packed_map(&["a", "b"]);
    v1[2] = roving::layout::VERSION_1;
    let err = Document::open(&v1).unwrap_err();
    assert!(matches!(err.kind(), K::UnknownTag(0x25)), "{err}");
}

/// Every byte of a packed map changed, one at a time: opening never
/// panics, and a document that still validates reads in full.
#[test]
fn every_changed_byte_is_refused_or_reads() {
    let owned: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
    let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let good = packed_map(&keys);
    for at in 3..good.len() {
        for x in [0x01u8, 0x80, 0xFF] {
            let mut bad = good.clone();
            bad[at] ^= x;
            if let Ok(doc) = Document::open(&bad) {
                if let Some(map) = doc.root().as_map() {
                    for (k, v) in map.iter() {
                        assert_eq!(map.get(k).map(|w| w == v), Some(true));
                    }
                }
            }
            let _ = Document::open_lazy(&bad).map(|d| {
                if let Some(m) = d.root().as_map() {
                    let _ = m.keys().count();
                    let _ = m.try_get("k3");
                }
            });
        }
    }
}

/// A document with a packed map and a map of shared keys, written against
/// a growing dictionary: it opens with the dictionary, and only the shared
/// shape becomes an entry.
#[test]
fn packed_maps_after_a_dictionary_base() {
    use roving::Dictionary;
    let mut dict = Dictionary::new();
    dict.add_shape(&["id".to_string(), "name".to_string()])
        .unwrap();
    let owned: Vec<String> = (0..50).map(|i| format!("user{i}")).collect();
    let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let mut e = Encoder::with_dictionary(&dict);
    e.begin_array().unwrap();
    e.begin_map_with_keys(&keys).unwrap();
    for i in 0..keys.len() {
        e.begin_map().unwrap();
        e.key("id").unwrap();
        e.i64(i as i64).unwrap();
        e.key("name").unwrap();
        e.str("x").unwrap();
        e.end_map().unwrap();
    }
    e.end_map().unwrap();
    e.begin_map().unwrap();
    e.key("other").unwrap();
    e.i64(1).unwrap();
    e.end_map().unwrap();
    e.end_array().unwrap();
    let doc = e.finish_growing(&mut dict).unwrap();
    // The shape of {"other"} is learnt; the packed shape is not.
    assert_eq!(dict.len(), 2);
    let mut scratch = Vec::new();
    let d = Document::open_with(&doc, &dict, &mut scratch).unwrap();
    let users = d.root().index(0).unwrap().as_map().unwrap();
    assert_eq!(users.len(), 50);
    let u = users.get("user49").unwrap();
    assert_eq!(u.get("id").and_then(|v| v.as_i64()), Some(49));
    assert!(Document::open(&doc).is_err());
}

/// The keys of a packed map found in it, and keys it does not hold not.
fn lookups_agree(keys: &[&str], absent: &[&str]) {
    let bytes = packed_map(keys);
    let doc = Document::open(&bytes).unwrap();
    let map = doc.root().as_map().unwrap();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(map.position(k), Some(i), "{k:?}");
        assert_eq!(map.get(k).and_then(|v| v.as_i64()), Some(i as i64));
        let handle = roving::KeyHandle::new(k);
        assert_eq!(
            map.get_with(&handle).and_then(|v| v.as_i64()),
            Some(i as i64)
        );
    }
    for k in absent {
        assert_eq!(map.get(k), None, "{k:?}");
    }
    let lazy = Document::open_lazy(&bytes).unwrap();
    let lazy = lazy.root().as_map().unwrap();
    for (i, k) in keys.iter().enumerate().step_by(7) {
        assert_eq!(
            lazy.try_get(k).unwrap().and_then(|v| v.as_i64()),
            Some(i as i64)
        );
    }
}

/// The widths byte of the packed shape of `packed_map(keys)` (its first
/// record, after a count and a data length of one byte each for these
/// keys, or of more bytes).
fn order_bits(keys: &[&str]) -> u8 {
    let bytes = packed_map(keys);
    let doc = Document::open(&bytes).unwrap();
    let shape = roving::walk::records(&doc)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(shape.kind(), roving::walk::Kind::PackedShape);
    let mut p = shape.offset() + 1;
    for _ in 0..2 {
        while bytes[p] & 0x80 != 0 {
            p += 1;
        }
        p += 1;
    }
    bytes[p] & 0x30
}

#[test]
fn keys_in_order_have_no_index_and_are_found_by_binary_search() {
    use roving::layout::{KEYS_BY_BYTES, KEYS_BY_LENGTH};
    for n in [9usize, 10, 16, 17, 100, 255, 256, 1000, 20_000] {
        let owned: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let keys: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        assert_eq!(order_bits(&keys), KEYS_BY_LENGTH, "{n}");
        lookups_agree(
            &keys,
            &["", "-1", "00", "01", "x", &n.to_string(), "99999999"],
        );
        // The same keys in another order: a dense index.
        let mut shuffled = keys.clone();
        shuffled.swap(0, n - 1);
        assert_eq!(order_bits(&shuffled), 0, "{n}");
        let with_index = packed_map(&shuffled);
        assert!(with_index.len() > packed_map(&keys).len() + n, "{n}");
        lookups_agree(&shuffled, &["", "00", "x"]);
    }
    let mut names: Vec<String> = (0..300).map(|i| format!("name{}", i * 7 % 1000)).collect();
    names.extend(["", "é", "éa", "z", "zz", "a"].map(String::from));
    names.sort();
    let keys: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    assert_eq!(order_bits(&keys), KEYS_BY_BYTES);
    lookups_agree(&keys, &["b", "name", "name1000", "zzz", "ë", "\u{10FFFF}"]);
    // Eight keys or fewer are compared in turn: no order bit.
    assert_eq!(order_bits(&["a", "b", "c"]), 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Any keys in either order, or in none: every key is found, and keys
    /// the map does not hold are not.
    #[test]
    fn any_ordered_keys_are_found(
        set in proptest::collection::btree_set("[a-c\u{e9}]{0,4}", 9..60),
        by_length in proptest::bool::ANY,
        absent in proptest::collection::vec("[a-d\u{e9}]{0,5}", 0..20),
    ) {
        let mut keys: Vec<&str> = set.iter().map(|s| s.as_str()).collect();
        if by_length {
            keys.sort_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
        }
        let absent: Vec<&str> = absent
            .iter()
            .map(|s| s.as_str())
            .filter(|k| !set.contains(*k))
            .collect();
        lookups_agree(&keys, &absent);
    }
}
