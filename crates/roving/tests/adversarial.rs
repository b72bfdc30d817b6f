//! Hostile inputs: truncation at every byte, bit flips, huge lengths, deep
//! nesting and exponential sharing must give a value or an error, quickly,
//! never a panic, a hang or a stack overflow.

mod common;
use common::Rng;

use roving::{Document, Encoder, ErrorKind, Value};

fn people(n: usize) -> Vec<u8> {
    let path = common::repo_data("1000people.json");
    let all: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let some = serde_json::Value::Array(all.as_array().unwrap()[..n].to_vec());
    roving::json::from_json(serde_json::to_string(&some).unwrap().as_bytes()).unwrap()
}

/// Touches every value reachable from the root (bounded by the limits).
fn walk(doc: &Document<'_>) {
    let _ = roving::json::to_json(doc.root());
    let _ = roving::from_value::<serde_json::Value>(doc.root());
}

#[test]
fn truncation_at_every_byte() {
    let doc = people(20);
    assert!(Document::open(&doc).is_ok());
    for len in 0..doc.len() {
        if let Ok(d) = Document::open(&doc[..len]) {
            walk(&d);
        }
    }
}

#[test]
fn truncated_real_document_is_rejected() {
    let doc = people(20);
    let rejected = (0..doc.len())
        .filter(|&l| Document::open(&doc[..l]).is_err())
        .count();
    assert_eq!(rejected, doc.len(), "every proper prefix is rejected");
}

#[test]
fn random_bit_flips() {
    let doc = people(10);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    for _ in 0..20_000 {
        let mut bad = doc.clone();
        for _ in 0..(1 + rng.next() % 3) {
            let i = (rng.next() as usize) % bad.len();
            bad[i] ^= 1 << (rng.next() % 8);
        }
        if let Ok(d) = Document::open(&bad) {
            accepted += 1;
            walk(&d);
        }
    }
    // Some flips land in string bytes or ints and stay valid; most do not.
    assert!(accepted < 20_000);
}

#[test]
fn random_garbage() {
    let mut rng = Rng(12345);
    for n in 0..5_000 {
        let len = (rng.next() % 64) as usize;
        let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if n % 2 == 0 && len >= 3 {
            b[..3].copy_from_slice(b"RV\x01");
        }
        if let Ok(d) = Document::open(&b) {
            walk(&d);
        }
    }
}

#[test]
fn lengths_near_u64_max() {
    // Every length-carrying record with a length of 2^64 - 1 .. 2^64 - 9.
    for tag in [0x0cu8, 0x0d, 0x06, 0x07, 0x10, 0x11, 0x12, 0x13, 0x18, 0x1b] {
        for sub in 1..10u64 {
            let mut b = b"RV\x01".to_vec();
            b.push(tag);
            let mut v = u64::MAX - sub;
            while v >= 0x80 {
                b.push(v as u8 | 0x80);
                v >>= 7;
            }
            b.push(v as u8);
            b.extend_from_slice(b"\x1c\x03\x1c");
            let e = Document::open(&b).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::BadLength | ErrorKind::Truncated),
                "{e}"
            );
        }
    }
    // Vector and ext records too.
    let mut b = b"RV\x01\x0e\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01".to_vec();
    b.extend_from_slice(b"\x1c\x03\x1c");
    assert!(Document::open(&b).is_err());
}

/// 1,000,000 nested arrays, each holding the previous one.
fn deep(levels: usize) -> Vec<u8> {
    let mut b = b"RV\x01".to_vec();
    b.extend_from_slice(&[0x10, 0x01, 0x13]); // [[]]: innermost holds the empty array
    for _ in 1..levels {
        b.extend_from_slice(&[0x10, 0x01, 0x0c]); // [previous]: distance 3
    }
    b.extend_from_slice(&[0x1c, 0x0c, 0x1c]);
    b
}

#[test]
fn million_levels_of_nesting() {
    let b = deep(1_000_000);
    let doc = Document::open(&b).expect("deep documents are valid");
    let e = roving::json::to_json(doc.root()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
    let e = roving::from_slice::<serde_json::Value>(&b).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
    // Walking down by hand works at any depth.
    let mut v = doc.root();
    let mut depth = 0;
    while let Some(inner) = v.index(0) {
        v = inner;
        depth += 1;
    }
    assert_eq!(depth, 1_000_000);
    assert_eq!(v, doc.root().index(0).map(|_| v).unwrap());
    // Equality is iterative too.
    assert!(doc.root() == doc.root());
    // And the JSON parser refuses (rather than overflowing) deep input.
    let text: Vec<u8> = std::iter::repeat_n(b'[', 1_000_000)
        .chain(std::iter::repeat_n(b']', 1_000_000))
        .collect();
    let e = roving::json::from_json(&text).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
    let nested = |n: usize| -> Vec<u8> {
        std::iter::repeat_n(b'[', n)
            .chain(std::iter::repeat_n(b']', n))
            .collect()
    };
    // By default it accepts the depth the converters back to JSON accept,
    // so that what it makes converts back.
    let d = roving::json::from_json(&nested(10_000)).unwrap();
    let back = roving::json::to_json(Document::open(&d).unwrap().root()).unwrap();
    assert_eq!(back.as_bytes(), nested(10_000));
    let e = roving::json::from_json(&nested(10_001)).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
    // Deeper with an explicit limit.
    let d = roving::json::from_json_with(&nested(50_000), 50_000).unwrap();
    assert!(Document::open(&d).is_ok());
}

#[test]
fn exponential_sharing_is_linear() {
    // 60 levels of arrays, each holding two references to the one below:
    // a few hundred bytes standing for 2^60 leaves.
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for level in 0..60 {
        e.begin_array().unwrap();
        if level == 59 {
            e.i64(1).unwrap();
        }
    }
    // Close from the innermost: each closed array is reused by its parent.
    let mut last = e.end_array().unwrap();
    for _ in 0..59 {
        e.reuse(last).unwrap();
        last = e.end_array().unwrap();
    }
    e.reuse(last).unwrap();
    e.end_array().unwrap();
    let b = e.finish().unwrap();
    assert!(b.len() < 1000, "{} bytes", b.len());
    let t = std::time::Instant::now();
    let doc = Document::open(&b).unwrap();
    let e = roving::json::to_json(doc.root()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ExpansionLimit);
    let e = roving::from_slice::<serde_json::Value>(&b).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ExpansionLimit);
    // Not a timing assertion on speed, only a guard against a hang:
    // the limits stop the walk after ~10^7 values.
    assert!(t.elapsed().as_secs() < 60);
}

#[test]
fn forward_and_self_references() {
    // A map whose shape reference points at the map itself or past it.
    for r in [0u8, 2, 4, 6] {
        let b = [b"RV\x01".as_slice(), &[0x14, r, 0x1c, 0x0c, 0x1c]].concat();
        assert!(Document::open(&b).is_err());
    }
    // Absolute references to every position at or after the referring record.
    for t in 3u8..12 {
        let b = [
            b"RV\x01".as_slice(),
            &[0x10, 0x01, (t << 2) | 2, 0x1c, 0x0c, 0x1c],
        ]
        .concat();
        assert!(Document::open(&b).is_err(), "target {t}");
    }
}

#[test]
fn values_after_open_never_panic() {
    let doc = people(3);
    let d = Document::open(&doc).unwrap();
    let root = d.root();
    assert!(root.index(3).is_none());
    assert!(root.index(usize::MAX).is_none());
    let p = root.index(0).unwrap();
    assert!(p.get("nope").is_none());
    assert!(matches!(p.get("tags"), Some(Value::Array(_))));
    assert!(d.get_path("[0].friends[2].name").unwrap().is_some());
    assert!(d.get_path("[0].friends[3].name").unwrap().is_none());
    assert!(d.get_path("[0").is_err());
}

#[test]
fn large_arrays_of_mixed_width_ints_validate() {
    // Regression: an array of 0..=19114 put its I16 records too far for
    // 2-byte slots (found by the seed 001 benchmark).
    for n in [100usize, 8_200, 19_115, 20_000, 70_000] {
        for scale in [1i64, 3, 1_000, 70_000, -7] {
            let mut e = Encoder::new();
            e.begin_array().unwrap();
            for i in 0..n as i64 {
                e.i64(i * scale).unwrap();
            }
            e.end_array().unwrap();
            let b = e.finish().unwrap();
            let doc = Document::open(&b).unwrap_or_else(|err| panic!("n={n} scale={scale}: {err}"));
            let a = doc.root().as_array().unwrap();
            assert_eq!(a.len(), n);
            assert_eq!(a.get(n - 1).unwrap().as_i64(), Some((n as i64 - 1) * scale));
        }
    }
    let text: String = format!(
        "[{}]",
        (0..20_000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let b = roving::json::from_json(text.as_bytes()).unwrap();
    assert!(Document::open(&b).is_ok());
}

#[test]
fn encoder_reuse_gives_identical_documents() {
    let mut e = Encoder::new();
    let mut docs = Vec::new();
    for _ in 0..3 {
        e.begin_map().unwrap();
        e.key("k").unwrap();
        e.str("v").unwrap();
        e.end_map().unwrap();
        docs.push(e.finish_with(|b| b.to_vec()).unwrap());
    }
    e.i64(5).unwrap();
    let last = e.finish_reset().unwrap();
    assert!(docs.windows(2).all(|w| w[0] == w[1]));
    assert!(Document::open(&docs[0]).is_ok());
    assert_eq!(Document::open(&last).unwrap().root().as_i64(), Some(5));
}

#[test]
fn key_ids_write_the_same_bytes_as_keys() {
    fn doc(e: &mut Encoder, by_id: bool) -> Vec<u8> {
        e.begin_array().unwrap();
        let mut ids = Vec::new();
        for i in 0..3 {
            e.begin_map().unwrap();
            for (j, k) in ["name", "", "age"].into_iter().enumerate() {
                if by_id && i > 0 {
                    e.key_id(ids[j]).unwrap();
                } else {
                    ids.push(e.key_with_id(k).unwrap());
                }
                e.i64(i).unwrap();
            }
            e.end_map().unwrap();
        }
        e.end_array().unwrap();
        e.finish_with(|b| b.to_vec()).unwrap()
    }
    let mut e = Encoder::new();
    let plain = doc(&mut e, false);
    let by_id = doc(&mut e, true);
    assert_eq!(plain, by_id);
    assert!(Document::open(&by_id).is_ok());
    // An id belongs to one document; a key needs an open map.
    e.begin_map().unwrap();
    let id = e.key_with_id("k").unwrap();
    assert!(e.key_id(id).is_err());
    e.i64(1).unwrap();
    e.key_id(id).unwrap();
    e.i64(2).unwrap();
    e.end_map().unwrap();
    let d = e.finish_with(|b| b.to_vec()).unwrap();
    assert_eq!(
        Document::open(&d)
            .unwrap()
            .root()
            .get("k")
            .and_then(|v| v.as_i64()),
        Some(2)
    );
    e.begin_map().unwrap();
    assert!(e.key_id(id).is_err());
}

#[test]
fn key_ids_agree_with_keys_when_the_predicted_shape_is_left() {
    // Sibling maps whose keys follow, cut short, reorder and extend the
    // shape of the map before them: `key_id` must give `key`'s bytes.
    let maps: [&[&str]; 6] = [
        &["name", "", "age"],
        &["name", "age"],
        &["age", "name", ""],
        &["name", "", "age", "x"],
        &["name", "", "age"],
        &["x"],
    ];
    fn doc(e: &mut Encoder, maps: &[&[&str]], by_id: bool) -> Vec<u8> {
        let mut ids: Vec<(&str, roving::KeyId)> = Vec::new();
        e.begin_array().unwrap();
        for (i, keys) in maps.iter().enumerate() {
            e.begin_map().unwrap();
            for k in keys.iter() {
                match ids.iter().find(|(n, _)| n == k) {
                    Some(&(_, id)) if by_id => e.key_id(id).unwrap(),
                    _ => ids.push((k, e.key_with_id(k).unwrap())),
                }
                e.i64(i as i64).unwrap();
            }
            e.end_map().unwrap();
        }
        e.end_array().unwrap();
        e.finish_with(|b| b.to_vec()).unwrap()
    }
    let mut e = Encoder::new();
    let plain = doc(&mut e, &maps, false);
    let by_id = doc(&mut e, &maps, true);
    assert_eq!(plain, by_id);
    let d = Document::open(&by_id).unwrap();
    let third = d.root().index(2).unwrap();
    let keys: Vec<&str> = third.as_map().unwrap().keys().collect();
    assert_eq!(keys, ["age", "name", ""]);
}

/// A document of `levels` nested arrays, each holding two references to the
/// one below (2^levels leaves as a tree); `leaf` is the innermost value.
fn doubly_shared(levels: usize, leaf: i64) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for level in 0..levels {
        e.begin_array().unwrap();
        if level == levels - 1 {
            e.i64(leaf).unwrap();
        }
    }
    let mut last = e.end_array().unwrap();
    for _ in 0..levels - 1 {
        e.reuse(last).unwrap();
        last = e.end_array().unwrap();
    }
    e.reuse(last).unwrap();
    e.end_array().unwrap();
    e.finish().unwrap()
}

#[test]
fn equality_of_shared_documents_is_linear() {
    // Value equality numbers each distinct subtree once: comparing two
    // documents that stand for 2^60 leaves each finishes at once, and a
    // difference at the bottom is still seen.
    let a = doubly_shared(60, 1);
    let b = doubly_shared(60, 1);
    let c = doubly_shared(60, 2);
    let (da, db, dc) = (
        Document::open(&a).unwrap(),
        Document::open(&b).unwrap(),
        Document::open(&c).unwrap(),
    );
    assert!(da.root() == db.root());
    assert!(da.root() != dc.root());
    assert!(da.root() == da.root());
    // Re-encoding keeps the value (the fuzz property of `reencode`).
    let mut e = Encoder::new();
    e.write_value(da.root()).unwrap();
    let again = e.finish().unwrap();
    assert!(Document::open(&again).unwrap().root() == da.root());
}

#[test]
fn equality_regression_shared_maps() {
    // Fuzz finding (`reencode`, timeout): nested maps sharing their values
    // made `==` walk the expanded tree.
    let b = include_bytes!("data/shared-maps-equality.rvs");
    let doc = Document::open(b).unwrap();
    let mut e = Encoder::new();
    e.write_value(doc.root()).unwrap();
    let once = e.finish().unwrap();
    let again = Document::open(&once).unwrap();
    assert!(again.root() == doc.root());
}

#[test]
fn equality_tells_kinds_and_order_apart() {
    let docs: Vec<Vec<u8>> = [
        r#"[]"#,
        r#"{}"#,
        r#"[[]]"#,
        r#"[{}]"#,
        r#"{"a":1,"b":2}"#,
        r#"{"b":2,"a":1}"#,
        r#"{"a":[1,2]}"#,
        r#"{"a":[2,1]}"#,
        r#"[1,"1"]"#,
        r#"["1",1]"#,
        r#"[1.0]"#,
        r#"[1]"#,
    ]
    .iter()
    .map(|j| roving::json::from_json(j.as_bytes()).unwrap())
    .collect();
    for (i, x) in docs.iter().enumerate() {
        for (j, y) in docs.iter().enumerate() {
            let (dx, dy) = (Document::open(x).unwrap(), Document::open(y).unwrap());
            assert_eq!(dx.root() == dy.root(), i == j, "{i} vs {j}");
        }
    }
}
