//! Maps of numbers (`26`, FORMAT.md section 6.19): a map opened with its
//! keys whose values are all integers or all floats is written as a number
//! array and a map that refers to it when that is smaller; it reads back
//! as any map, validates, and damaged ones are refused or read safely.

use proptest::prelude::*;
use roving::walk::{self, Kind};
use roving::{Document, Encoder, Value};

/// A number written to the encoder.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i64),
    Float(f64),
}

/// A document of one map of `keys` opened with its keys, values `values`.
fn num_map(keys: &[String], values: &[Num]) -> Vec<u8> {
    let keys: Vec<&str> = keys.iter().map(|s| s.as_str()).collect();
    let mut e = Encoder::new();
    e.begin_map_with_keys(&keys).unwrap();
    for v in values {
        match *v {
            Num::Int(i) => e.i64(i).unwrap(),
            Num::Float(f) => e.f64(f).unwrap(),
        }
    }
    e.end_map().unwrap();
    e.finish().unwrap()
}

/// The same map written key by key (a shape of slots, a map record).
fn plain_map(keys: &[String], values: &[Num]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    for (k, v) in keys.iter().zip(values) {
        e.key(k).unwrap();
        match *v {
            Num::Int(i) => e.i64(i).unwrap(),
            Num::Float(f) => e.f64(f).unwrap(),
        }
    }
    e.end_map().unwrap();
    e.finish().unwrap()
}

/// The kinds of the records of `bytes`, in order.
fn kinds(bytes: &[u8]) -> Vec<Kind> {
    let doc = Document::open(bytes).unwrap();
    walk::records(&doc)
        .unwrap()
        .map(|r| r.unwrap().kind())
        .collect()
}

fn keys(n: usize) -> Vec<String> {
    (0..n).map(|i| i.to_string()).collect()
}

/// Checks that `bytes` reads as the map of `keys` and `values`, by every
/// way of reading a map, and as the same map written key by key.
fn reads_as(bytes: &[u8], keys: &[String], values: &[Num]) {
    let doc = Document::open(bytes).unwrap();
    let map = doc.root().as_map().unwrap();
    assert_eq!(map.len(), keys.len());
    let want = |v: Num| match v {
        Num::Int(i) => Value::Int(i),
        Num::Float(f) => Value::Float(f),
    };
    for (i, (k, &v)) in keys.iter().zip(values).enumerate() {
        assert_eq!(map.get(k), Some(want(v)), "{k}");
        assert_eq!(map.value_at(i), Some(want(v)), "{k}");
        assert_eq!(map.try_get(k).unwrap(), Some(want(v)), "{k}");
    }
    let iterated: Vec<(&str, Value<'_>)> = map.iter().collect();
    assert_eq!(iterated.len(), keys.len());
    for ((k, v), (wk, &wv)) in iterated.iter().zip(keys.iter().zip(values)) {
        assert_eq!((*k, *v), (wk.as_str(), want(wv)));
    }
    let lazy = Document::open_lazy(bytes).unwrap();
    let lazy_map = lazy.root().as_map().unwrap();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(lazy_map.try_get(k).unwrap(), Some(want(values[i])));
    }
    let plain = plain_map(keys, values);
    let other = Document::open(&plain).unwrap();
    assert_eq!(doc.root(), other.root());
    assert_eq!(
        roving::json::to_json(doc.root()).unwrap(),
        roving::json::to_json(other.root()).unwrap()
    );
}

#[test]
fn ints_that_need_wide_slots_become_a_map_of_numbers() {
    let k = keys(20_000);
    let values: Vec<Num> = (0..20_000).map(Num::Int).collect();
    let bytes = num_map(&k, &values);
    assert_eq!(
        kinds(&bytes),
        [Kind::PackedShape, Kind::NumArray, Kind::NumMap, Kind::Root]
    );
    // The values are an i16 number array: 2 bytes each.
    let doc = Document::open(&bytes).unwrap();
    let recs: Vec<_> = walk::records(&doc).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(recs[1].numbers(), Some((2, 20_000)));
    assert_eq!(recs[1].encoding(), "numbers<i16>");
    assert_eq!(recs[2].encoding(), "map<numbers>");
    // Its shape and its one reference, to the values.
    assert_eq!(recs[2].shape(), Some(recs[0].offset()));
    assert_eq!(
        recs[2].slots().collect::<Vec<_>>(),
        [walk::Slot::Ref(recs[1].offset())]
    );
    reads_as(&bytes, &k, &values);
}

#[test]
fn floats_become_a_map_of_numbers() {
    let k = keys(50);
    for values in [
        (0..50)
            .map(|i| Num::Float(i as f64 + 0.5))
            .collect::<Vec<_>>(),
        (0..50).map(|i| Num::Float(i as f64 / 10.0)).collect(),
        (0..50)
            .map(|i| Num::Float(1.0 / (i as f64 + 3.0)))
            .collect(),
    ] {
        let bytes = num_map(&k, &values);
        assert!(
            kinds(&bytes).contains(&Kind::NumMap),
            "{values:?} {:?}",
            kinds(&bytes)
        );
        reads_as(&bytes, &k, &values);
    }
}

#[test]
fn small_ints_keep_their_slots() {
    // Values that fit 1-byte slots: a number array would not be smaller.
    let k = keys(100);
    let values: Vec<Num> = (0..100).map(|i| Num::Int(i % 7)).collect();
    let bytes = num_map(&k, &values);
    assert_eq!(kinds(&bytes), [Kind::PackedShape, Kind::Map, Kind::Root]);
    reads_as(&bytes, &k, &values);
}

#[test]
fn mixed_values_and_maps_of_slots_keep_their_slots() {
    let k = keys(30);
    let values: Vec<Num> = (0..30)
        .map(|i| {
            if i % 2 == 0 {
                Num::Int(i * 1000)
            } else {
                Num::Float(i as f64 + 0.5)
            }
        })
        .collect();
    let bytes = num_map(&k, &values);
    assert!(!kinds(&bytes).contains(&Kind::NumMap));
    reads_as(&bytes, &k, &values);
    // A map written key by key never becomes a map of numbers.
    let ints: Vec<Num> = (0..30).map(|i| Num::Int(i * 100_000)).collect();
    assert!(!kinds(&plain_map(&k, &ints)).contains(&Kind::NumMap));
}

#[test]
fn a_marked_value_keeps_the_map_in_slots() {
    let owned = keys(20);
    let k: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.begin_map_with_keys(&k).unwrap();
    e.f64(0.5).unwrap();
    let mark = e.mark().unwrap();
    for i in 1..20 {
        e.f64(i as f64 + 0.5).unwrap();
    }
    e.end_map().unwrap();
    e.reuse(mark).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    assert!(!kinds(&bytes).contains(&Kind::NumMap));
    let doc = Document::open(&bytes).unwrap();
    let root = doc.root();
    assert_eq!(root.index(1).and_then(|v| v.as_f64()), Some(0.5));
    let map = root.index(0).unwrap().as_map().unwrap();
    assert_eq!(map.get("19").and_then(|v| v.as_f64()), Some(19.5));
}

/// Every byte of a map of numbers changed, one at a time: opening never
/// panics, and a document that still validates reads in full.
#[test]
fn every_changed_byte_is_refused_or_reads() {
    let k = keys(12);
    let values: Vec<Num> = (0..12).map(|i| Num::Int(i * 1000)).collect();
    let good = num_map(&k, &values);
    assert!(kinds(&good).contains(&Kind::NumMap));
    for at in 3..good.len() {
        for x in [0x01u8, 0x02, 0x80, 0xFF] {
            let mut bad = good.clone();
            bad[at] ^= x;
            if let Ok(doc) = Document::open(&bad) {
                if let Some(map) = doc.root().as_map() {
                    for (key, v) in map.iter() {
                        assert_eq!(map.get(key).map(|w| w == v), Some(true));
                    }
                    let _ = roving::json::to_json(doc.root()).unwrap();
                }
            }
            let _ = Document::open_lazy(&bad).map(|d| {
                if let Some(m) = d.root().as_map() {
                    let _ = m.keys().count();
                    let _ = m.try_get("3");
                    for i in 0..m.len() {
                        let _ = m.try_value_at(i);
                    }
                }
            });
        }
    }
}

fn nums() -> impl Strategy<Value = Vec<Num>> {
    prop_oneof![
        prop::collection::vec(any::<i64>().prop_map(Num::Int), 0..80),
        prop::collection::vec((-70_000i64..70_000).prop_map(Num::Int), 0..80),
        prop::collection::vec(any::<f64>().prop_map(Num::Float), 0..80),
        prop::collection::vec(
            (-1000i32..1000).prop_map(|m| Num::Float(m as f64 / 8.0)),
            0..80
        ),
        prop::collection::vec(
            (-1000i32..1000).prop_map(|m| Num::Float(m as f64 / 100.0)),
            0..80
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any numbers under unique keys read back as written, as the same map
    /// written key by key, in a document that validates.
    #[test]
    fn any_numbers_read_back(values in nums()) {
        let k = keys(values.len());
        let bytes = num_map(&k, &values);
        let doc = Document::open(&bytes).unwrap();
        let map = doc.root().as_map().unwrap();
        prop_assert_eq!(map.len(), values.len());
        for (i, v) in values.iter().enumerate() {
            let got = map.value_at(i).unwrap();
            match *v {
                Num::Int(x) => prop_assert_eq!(got, Value::Int(x)),
                Num::Float(x) => prop_assert_eq!(got.as_f64().map(f64::to_bits), Some(x.to_bits())),
            }
        }
        let plain = plain_map(&k, &values);
        prop_assert_eq!(
            roving::json::to_json(doc.root()).unwrap(),
            roving::json::to_json(Document::open(&plain).unwrap().root()).unwrap()
        );
    }
}

/// Serde decodes a map of numbers as any map: into a map type, and into a
/// struct whose fields are its keys (the struct's fast path is a map
/// record's only).
#[test]
fn serde_reads_maps_of_numbers() {
    use std::collections::BTreeMap;
    let k = keys(3000);
    // Values up to 29,990: 4-byte slots, or 2 bytes each as i16.
    let values: Vec<Num> = (0..3000).map(|i| Num::Int(i * 10)).collect();
    let bytes = num_map(&k, &values);
    assert!(kinds(&bytes).contains(&Kind::NumMap));
    let m: BTreeMap<String, i64> = roving::from_slice(&bytes).unwrap();
    assert_eq!(m.len(), 3000);
    assert_eq!(m["2999"], 29_990);
    let f: BTreeMap<String, f64> = roving::from_slice(&bytes).unwrap();
    assert_eq!(f["7"], 70.0);
    // A value of the wrong type names its key.
    let e = roving::from_slice::<BTreeMap<String, String>>(&bytes).unwrap_err();
    assert!(e.to_string().contains(".0"), "{e}");

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct A {
        a: i64,
    }
    // FORMAT.md section 6.19's example: a shape of slots, a map of numbers.
    let example = [
        0x52, 0x56, 0x02, 0x81, b'a', 0x18, 0x01, 0x08, 0x31, 0x01, 0x07, 0x26, 0x0c, 0x06, 0x1c,
        0x0c, 0x1c,
    ];
    let a: A = roving::from_slice(&example).unwrap();
    assert_eq!(a, A { a: 7 });
    // A map record of that shape, then a map of numbers of it: the second
    // takes the shape the first made known as the struct's.
    let both = [
        0x52, 0x56, 0x02, 0x81, b'a', 0x18, 0x01, 0x08, 0x14, 0x06, 0x15, 0x31, 0x01, 0x07, 0x26,
        0x12, 0x06, 0x10, 0x02, 0x24, 0x0c, 0x1c, 0x10, 0x1c,
    ];
    let v: Vec<A> = roving::from_slice(&both).unwrap();
    assert_eq!(v, [A { a: 5 }, A { a: 7 }]);
    // Twice, written by the encoder.
    let two: Vec<A> = {
        let mut e = Encoder::new();
        e.begin_array().unwrap();
        for _ in 0..2 {
            e.begin_map_with_keys(&["a"]).unwrap();
            e.i64(1 << 40).unwrap();
            e.end_map().unwrap();
        }
        e.end_array().unwrap();
        roving::from_slice(&e.finish().unwrap()).unwrap()
    };
    assert_eq!(two, [A { a: 1 << 40 }, A { a: 1 << 40 }]);
}

/// `walk::record_at` may be given an offset inside a record: a map of
/// numbers found there (in a byte string's payload, referring to a fake
/// shape whose key is not UTF-8) reads as a lazily opened document's,
/// whose keys are checked: never a `&str` of bytes that are not UTF-8.
#[test]
fn a_map_of_numbers_inside_a_byte_string_reads_checked() {
    // 52 56 02 | 0D 0B [81 FF | 18 01 08 | 31 01 07 | 26 0C 06] | 1C 34 1C
    let bytes = [
        0x52, 0x56, 0x02, 0x0D, 0x0B, 0x81, 0xFF, 0x18, 0x01, 0x08, 0x31, 0x01, 0x07, 0x26, 0x0C,
        0x06, 0x1C, 0x34, 0x1C,
    ];
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(doc.root().as_bytes(), Some(&bytes[5..16]));
    let rec = walk::record_at(&doc, 13).unwrap();
    assert_eq!(rec.kind(), Kind::NumMap);
    if let Some(Value::Map(m)) = rec.value() {
        for k in m.keys() {
            assert!(std::str::from_utf8(k.as_bytes()).is_ok());
        }
        for (k, _) in m.iter() {
            assert!(std::str::from_utf8(k.as_bytes()).is_ok());
        }
        assert!(m.try_key_at(0).is_err());
    }
}
