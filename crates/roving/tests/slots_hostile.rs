//! `Map::slots` (`MapSlots`) and `Array::slots` (`ArraySlots`) on hostile
//! bytes: truncated, bit-flipped and randomly edited copies of real
//! documents, opened as the Python package and the store open them
//! (validated with `Document::open`, and lazily with `Document::open_lazy`).
//! Walking every map and array through the slot accessors never panics,
//! and reads exactly what `Map::iter` / `Array::iter` (and the `try_`
//! accessors) read.

mod common;
use common::Rng;

use proptest::prelude::*;
use roving::{Document, Map, Value};

/// 1000people.json, its first `n` people as one document.
fn people(n: usize) -> Vec<u8> {
    let path = common::repo_data("1000people.json");
    let all: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let some = serde_json::Value::Array(all.as_array().unwrap()[..n].to_vec());
    roving::json::from_json(serde_json::to_string(&some).unwrap().as_bytes()).unwrap()
}

/// A document with what `people` lacks: integer records of every width,
/// keys of 0 to 70 bytes (empty, short, 8 to 16 bytes, long form), many
/// maps of one shape, wide slots, nested empties.
fn assorted() -> Vec<u8> {
    let long = "k".repeat(70);
    let mut enc = roving::Encoder::new();
    enc.begin_array().unwrap();
    for i in 0..40i64 {
        enc.begin_map().unwrap();
        for (j, k) in ["", "a", "identifier", "displayInRect!!!", long.as_str()]
            .iter()
            .enumerate()
        {
            enc.key(k).unwrap();
            match (i + j as i64) % 6 {
                0 => enc.i64(i << (8 * (j % 8))).unwrap(),
                1 => enc.i64(-(1i64 << (7 * j + 9))).unwrap(),
                2 => enc.str(k).unwrap(),
                3 => enc.f64(i as f64 / 3.0).unwrap(),
                4 => {
                    enc.begin_array().unwrap();
                    enc.i64(i64::MIN + i).unwrap();
                    enc.u64(u64::MAX - i as u64).unwrap();
                    enc.begin_map().unwrap();
                    enc.end_map().unwrap();
                    enc.end_array().unwrap();
                }
                _ => enc.null().unwrap(),
            }
        }
        enc.end_map().unwrap();
    }
    enc.end_array().unwrap();
    enc.finish().unwrap()
}

/// A comparable description of a value that does not read its children
/// (a `Map`'s or `Array`'s `Debug` prints the whole buffer).
fn desc(v: &Value<'_>) -> String {
    match v {
        Value::Map(m) => format!("map@{:?}#{}", m.offset(), m.len()),
        Value::Array(a) => format!("array@{:?}#{}", a.offset(), a.len()),
        Value::Vector(x) => format!("vector@{}#{}", x.offset(), x.len()),
        Value::Str(s) => {
            assert!(
                std::str::from_utf8(s.as_bytes()).is_ok(),
                "a &str that is not UTF-8"
            );
            format!("{v:?}")
        }
        _ => format!("{v:?}"),
    }
}

fn desc_result(r: roving::Result<Option<Value<'_>>>) -> String {
    match r {
        Ok(Some(v)) => desc(&v),
        Ok(None) => "none".into(),
        Err(e) => format!("error {:?}", e.kind()),
    }
}

/// Checks the slot accessors of `m`, a map of the document `bytes`,
/// against the map's other accessors.
fn check_map(m: Map<'_>, bytes: &[u8]) {
    // A packed shape's keys have no records (FORMAT.md section 6.18).
    let packed = m
        .shape_offset()
        .is_some_and(|s| bytes.get(s) == Some(&roving::layout::TAG_PACKED_SHAPE));
    let s = m.slots();
    let n = m.len();
    assert_eq!(s.len(), n);
    assert_eq!(s.is_empty(), m.is_empty());
    assert_eq!(s.shape_offset(), m.shape_offset());
    let mut it = m.iter();
    let mut records = Vec::new();
    for i in 0..n {
        let (k, v) = it.next().expect("iter ended early");
        assert_eq!(s.key(i), m.key_at(i), "key {i}");
        assert_eq!(s.key(i).unwrap_or(""), k, "key {i}");
        let x = s.value(i).expect("value in range");
        assert_eq!(desc(&x), desc(&v), "value {i}");
        assert_eq!(desc(&x), desc(&m.value_at(i).unwrap()), "value {i}");
        assert_eq!(
            desc_result(s.try_value(i)),
            desc_result(m.try_value_at(i)),
            "try_value {i}"
        );
        let rec = s.key_record(i);
        match (rec, s.key(i)) {
            (Some(r), Some(k)) => {
                assert!(r.ends_with(k.as_bytes()), "key_record {i}");
                // (An empty key may also be stored as a record.)
                assert!(!r.is_empty() || k.is_empty(), "key_record {i}");
            }
            // A key that is not UTF-8 (lazily opened) still has its record.
            (Some(_), None) => assert!(m.try_key_at(i).is_err()),
            (None, Some(_)) if packed => {}
            (None, _) => assert_eq!(s.key(i), None, "key without a record {i}"),
        }
        if let Some(r) = rec {
            // Empty records (the empty-key immediate) are compared by kind.
            assert!(s.key_record_is(i, r), "key_record_is {i} of its own record");
        }
        records.push(rec);
    }
    assert!(it.next().is_none(), "iter is longer than len");
    // Past the end, and far past it.
    for i in [n, n + 1, usize::MAX / 2, usize::MAX] {
        assert!(s.key(i).is_none());
        assert!(s.key_record(i).is_none());
        assert!(s.value(i).is_none());
        assert!(matches!(s.try_value(i), Ok(None)));
        assert!(!s.key_record_is(i, b"\x81a"));
        assert!(!s.key_record_is(i, &[]));
    }
    // Equal records mean equal keys (pairs of the first keys).
    let k = n.min(24);
    for (i, rec) in records.iter().enumerate().take(k) {
        let Some(r) = *rec else { continue };
        for j in 0..k {
            if s.key_record_is(j, r) {
                assert_eq!(
                    m.slots().key_record(j),
                    Some(r),
                    "key_record_is({j}, record of {i}) but the records differ"
                );
            }
        }
    }
}

/// Walks every map and array reachable from `v` (within `budget` values:
/// a damaged document can share subtrees), checking the slot accessors.
fn walk(v: Value<'_>, bytes: &[u8], budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    match v {
        Value::Map(m) => {
            check_map(m, bytes);
            for x in m.values() {
                walk(x, bytes, budget);
            }
        }
        Value::Array(a) => {
            let s = a.slots();
            let n = a.len();
            assert_eq!(s.len(), n);
            assert_eq!(s.is_empty(), a.is_empty());
            let mut it = a.iter();
            for i in 0..n {
                let x = s.value(i).expect("element in range");
                let y = it.next().expect("iter ended early");
                assert_eq!(desc(&x), desc(&y), "element {i}");
                assert_eq!(desc(&x), desc(&a.get(i).unwrap()), "element {i}");
            }
            assert!(it.next().is_none(), "iter is longer than len");
            for i in [n, n + 1, usize::MAX / 2, usize::MAX] {
                assert!(s.value(i).is_none());
            }
            for x in a.iter() {
                walk(x, bytes, budget);
            }
        }
        _ => {}
    }
}

/// Opens `bytes` validated and lazily (as the Python package and the
/// store do) and walks whatever opens.
fn check(bytes: &[u8]) {
    if let Ok(doc) = Document::open(bytes) {
        let mut budget = 20_000;
        walk(doc.root(), bytes, &mut budget);
    }
    if let Ok(doc) = Document::open_lazy(bytes) {
        let mut budget = 20_000;
        walk(doc.root(), bytes, &mut budget);
    }
}

/// Every truncation, then random bit flips and byte changes.
fn damage(doc: &[u8], seed: u64, rounds: usize) {
    for len in 0..doc.len().min(3_000) {
        check(&doc[..len]);
    }
    check(doc);
    if doc.is_empty() {
        return;
    }
    let mut rng = Rng(seed);
    for round in 0..rounds {
        let mut bad = doc.to_vec();
        for _ in 0..(1 + rng.next() % 4) {
            let i = (rng.next() % bad.len() as u64) as usize;
            if round % 3 == 0 {
                bad[i] = rng.next() as u8;
            } else {
                bad[i] ^= 1 << (rng.next() % 8);
            }
        }
        check(&bad);
    }
}

#[test]
fn slots_of_intact_documents_agree() {
    check(&people(1000));
    check(&assorted());
}

#[test]
fn slots_of_damaged_people() {
    damage(&people(8), 0x2545_F491_4F6C_DD1D, 3_000);
}

#[test]
fn slots_of_damaged_assorted_document() {
    damage(&assorted(), 0x9E37_79B9_7F4A_7C15, 3_000);
}

/// The golden vectors (valid and invalid), intact and damaged.
#[test]
fn slots_of_golden_vectors() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let hex = v["hex"].as_str().unwrap();
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        damage(&bytes, 0x1234_5678 + seen, 60);
        seen += 1;
    }
    assert!(seen > 20, "golden vectors not found");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random JSON documents, with a few bytes changed.
    #[test]
    fn slots_of_damaged_json(
        v in json(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
    ) {
        let mut bytes = roving::json::from_json(v.to_string().as_bytes()).unwrap();
        check(&bytes);
        for (i, x) in edits {
            let n = bytes.len();
            bytes[i % n] = x;
        }
        check(&bytes);
    }
}

fn json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::{json, Value as J};
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|i| json!(i)),
        (-100.0f64..100.0).prop_map(|f| json!(f)),
        ".{0,20}".prop_map(J::String),
    ];
    leaf.prop_recursive(4, 80, 12, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(J::Array),
            prop::collection::btree_map(
                prop_oneof![".{0,18}", Just("name".to_string()), Just(String::new())],
                inner,
                0..12
            )
            .prop_map(|m| J::Object(m.into_iter().collect())),
        ]
    })
}
