//! `roving::walk`: the records of documents made by the encoder, counted by
//! kind, with their encodings and slots; and invalid input as an error.

use std::collections::HashMap;

use roving::format::{SPECIAL_EMPTY_ARRAY, SPECIAL_NULL, SPECIAL_TRUE};
use roving::walk::{self, Kind, Record, Slot};
use roving::{Document, Encoder, Timestamp, Value};

fn all(bytes: &[u8]) -> Vec<Record<'_>> {
    let doc = Document::open(bytes).unwrap();
    walk::records(&doc)
        .unwrap()
        .collect::<roving::Result<Vec<_>>>()
        .unwrap()
}

fn by_kind(recs: &[Record<'_>]) -> HashMap<Kind, usize> {
    let mut m = HashMap::new();
    for r in recs {
        *m.entry(r.kind()).or_insert(0) += 1;
    }
    m
}

/// The records tile the document after the header, the root last.
fn check_tiling(bytes: &[u8], recs: &[Record<'_>]) {
    let mut pos = roving::format::HEADER_LEN;
    for r in recs {
        assert_eq!(r.offset(), pos);
        assert!(r.end() > r.offset());
        assert_eq!(r.len(), r.end() - r.offset());
        assert_eq!(r.tag(), bytes[r.offset()]);
        pos = r.end();
    }
    assert_eq!(pos, bytes.len());
    assert_eq!(recs.last().unwrap().kind(), Kind::Root);
}

#[test]
fn counts_records_by_kind() {
    let json = br#"[{"name":"Ada","age":3,"tags":["x","y"]},
                    {"name":"Grace","age":8,"tags":[]},
                    {"name":"Ada","age":1e300,"tags":["x"]}]"#;
    let bytes = roving::json::from_json(json).unwrap();
    let recs = all(&bytes);
    check_tiling(&bytes, &recs);
    let k = by_kind(&recs);
    assert_eq!(k[&Kind::Root], 1);
    assert_eq!(k[&Kind::Shape], 1); // one key list for three maps
    assert_eq!(k[&Kind::Map], 3);
    // The root array and two non-empty tag lists ([] is a constant).
    assert_eq!(k[&Kind::Array], 3);
    assert_eq!(k[&Kind::Float], 1);
    // Keys name, age, tags and strings Ada, Grace, x, y, each stored once.
    assert_eq!(k[&Kind::Str], 7);
    assert!(!k.contains_key(&Kind::Int)); // small ints are inline
}

#[test]
fn slots_are_decoded() {
    let bytes = roving::json::from_json(br#"[1, -2, null, true, [], "s", {"k": 3}]"#).unwrap();
    let recs = all(&bytes);
    check_tiling(&bytes, &recs);
    let at: HashMap<usize, &Record<'_>> = recs.iter().map(|r| (r.offset(), r)).collect();
    let root = recs.last().unwrap();
    assert_eq!(root.slot_count(), 1);
    assert_eq!(root.encoding(), format!("root/{}", root.width()));
    let Some(Slot::Ref(top)) = root.slots().next() else {
        panic!("the root is a reference")
    };
    let array = at[&top];
    assert_eq!(array.kind(), Kind::Array);
    assert_eq!(array.encoding(), format!("array/{}", array.width()));
    assert_eq!(array.slot_bytes(), 7 * array.width());
    let slots: Vec<Slot> = array.slots().collect();
    assert_eq!(slots.len(), 7);
    assert_eq!(slots[0], Slot::Int(1));
    assert_eq!(slots[1], Slot::Int(-2));
    assert_eq!(slots[2], Slot::Special(SPECIAL_NULL));
    assert_eq!(slots[3], Slot::Special(SPECIAL_TRUE));
    assert_eq!(slots[4], Slot::Special(SPECIAL_EMPTY_ARRAY));
    let Slot::Ref(s) = slots[5] else {
        panic!("a string is a record")
    };
    assert_eq!(at[&s].kind(), Kind::Str);
    assert_eq!(at[&s].encoding(), "short str");
    assert_eq!(at[&s].value(), Some(Value::Str("s")));
    let Slot::Ref(m) = slots[6] else {
        panic!("a map is a record")
    };
    let map = at[&m];
    assert_eq!(map.kind(), Kind::Map);
    assert!(map.value().is_none());
    let shape = at[&map.shape().unwrap()];
    assert_eq!(shape.kind(), Kind::Shape);
    assert_eq!(shape.slot_count(), 1);
    let Some(Slot::Ref(key)) = shape.slots().next() else {
        panic!("a key is a string record")
    };
    assert_eq!(at[&key].value(), Some(Value::Str("k")));
    assert_eq!(map.slots().collect::<Vec<_>>(), [Slot::Int(3)]);
    // Random access agrees with the walk.
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(walk::record_at(&doc, m).unwrap().encoding(), map.encoding());
    assert_eq!(walk::root(&doc).unwrap().offset(), root.offset());
    assert!(walk::record_at(&doc, 1).is_err());
}

#[test]
fn encodings_of_scalars() {
    let mut enc = Encoder::new();
    enc.begin_array().unwrap();
    enc.i64(1 << 40).unwrap();
    enc.u64(u64::MAX).unwrap();
    enc.i128(-(1i128 << 100)).unwrap();
    enc.f64(0.1).unwrap();
    enc.f64(1.5).unwrap();
    enc.str(&"long ".repeat(20)).unwrap();
    enc.bytes(b"\x00\x01").unwrap();
    enc.timestamp(Timestamp::new(0, 5, None).unwrap()).unwrap();
    enc.timestamp(Timestamp::new(0, 5, Some(3600)).unwrap())
        .unwrap();
    enc.ext(99, b"abc").unwrap();
    enc.vector(&[1.5f64, 2.5]).unwrap();
    enc.vector(&[1u16, 2, 3]).unwrap();
    enc.end_array().unwrap();
    let bytes = enc.finish().unwrap();
    let recs = all(&bytes);
    check_tiling(&bytes, &recs);
    let kinds: Vec<(Kind, &str)> = recs.iter().map(|r| (r.kind(), r.encoding())).collect();
    for want in [
        (Kind::Int, "i64"),
        (Kind::UInt, "u64"),
        (Kind::BigInt, "bigint"),
        (Kind::Str, "str"),
        (Kind::Bytes, "bytes"),
        (Kind::Timestamp, "timestamp"),
        (Kind::Timestamp, "timestamp+offset"),
        (Kind::Ext, "ext"),
        (Kind::Vector, "vector<f64>"),
        (Kind::Vector, "vector<u16>"),
        (Kind::Root, "root/1"),
    ] {
        assert!(kinds.contains(&want), "{want:?} in {kinds:?}");
    }
    // References of over 63 bytes back (past the long string) need 2-byte slots.
    assert!(kinds.contains(&(Kind::Array, "array/2")), "{kinds:?}");
    assert_eq!(
        recs.iter().filter(|r| r.kind() == Kind::Float).count(),
        2,
        "{kinds:?}"
    );
    for r in &recs {
        assert_eq!(r.kind().has_slots(), r.value().is_none());
        assert_eq!(r.kind().has_slots(), r.width() > 0);
        if !r.kind().has_slots() {
            assert_eq!((r.slot_count(), r.slots().count()), (0, 0));
        }
    }
    let ext = recs.iter().find(|r| r.kind() == Kind::Ext).unwrap();
    let Some(Value::Ext(e)) = ext.value() else {
        panic!("an ext value")
    };
    assert_eq!((e.type_id, e.data), (99, &b"abc"[..]));
}

#[test]
fn shared_values_are_one_record() {
    let mut enc = Encoder::new();
    enc.begin_array().unwrap();
    enc.begin_array().unwrap();
    enc.str("shared").unwrap();
    let m = enc.end_array().unwrap();
    enc.reuse(m).unwrap();
    enc.end_array().unwrap();
    let bytes = enc.finish().unwrap();
    let recs = all(&bytes);
    check_tiling(&bytes, &recs);
    assert_eq!(by_kind(&recs)[&Kind::Array], 2);
    let outer = &recs[recs.len() - 2];
    let refs: Vec<Slot> = outer.slots().collect();
    assert_eq!(refs.len(), 2);
    assert_eq!(refs[0], refs[1]);
}

#[test]
fn large_maps_and_wide_slots() {
    // A shape of more than 8 keys has a hash index; the walk steps over it.
    let keys: Vec<String> = (0..40).map(|i| format!("key{i}")).collect();
    let mut enc = Encoder::new();
    enc.begin_array().unwrap();
    for row in 0..300 {
        enc.begin_map().unwrap();
        for k in &keys {
            enc.key(k).unwrap();
            enc.str(&format!("value {row} {k}")).unwrap();
        }
        enc.end_map().unwrap();
    }
    enc.end_array().unwrap();
    let bytes = enc.finish().unwrap();
    let recs = all(&bytes);
    check_tiling(&bytes, &recs);
    let k = by_kind(&recs);
    assert_eq!((k[&Kind::Shape], k[&Kind::Map]), (1, 300));
    let shape = recs.iter().find(|r| r.kind() == Kind::Shape).unwrap();
    assert_eq!(shape.slot_count(), 40);
    assert!(shape.len() > 1 + 1 + 40 * shape.width(), "with its index");
    assert!(recs.iter().any(|r| r.width() > 1));
}

#[test]
fn scalar_roots_and_constants() {
    for (json, n) in [(&b"null"[..], 1), (b"7", 1), (b"\"x\"", 2), (b"[]", 1)] {
        let bytes = roving::json::from_json(json).unwrap();
        let recs = all(&bytes);
        check_tiling(&bytes, &recs);
        assert_eq!(recs.len(), n, "{}", String::from_utf8_lossy(json));
    }
}

/// Every truncation of `good` (a valid document) is an error, and every
/// bit flip is an error or a document walked to the end; `root` and
/// `record_at` never panic on them.
fn check_truncations_and_flips(good: &[u8]) {
    // Lazily opened damaged documents: records() validates them.
    for cut in 0..good.len() {
        if let Ok(doc) = Document::open_lazy(&good[..cut]) {
            assert!(walk::records(&doc).is_err(), "cut at {cut}");
            let _ = walk::root(&doc);
        }
    }
    for i in 0..good.len() {
        for bit in 0..8 {
            let mut b = good.to_vec();
            b[i] ^= 1 << bit;
            let Ok(doc) = Document::open_lazy(&b) else {
                continue;
            };
            match walk::records(&doc) {
                Ok(it) => {
                    // A flip that leaves a valid document: walked to the end.
                    let recs = it.collect::<roving::Result<Vec<_>>>().unwrap();
                    check_tiling(&b, &recs);
                    let root = walk::root(&doc).unwrap();
                    assert_eq!(root.offset(), recs.last().unwrap().offset());
                }
                Err(e) => assert!(e.offset().is_some() || !e.to_string().is_empty()),
            }
            let _ = walk::root(&doc);
            if let Ok(r) = walk::record_at(&doc, i) {
                let _ = (r.slots().count(), r.value(), r.encoding());
            }
        }
    }
}

#[test]
fn invalid_input_is_an_error_not_a_panic() {
    let good = roving::json::from_json(br#"{"a":[1,"two",3.5],"b":{"c":null}}"#).unwrap();
    check_truncations_and_flips(&good);
    // Not a document at all.
    assert!(Document::open_lazy(b"{}").is_err());
}

#[test]
fn a_lazy_document_is_validated_first() {
    let bytes = roving::json::from_json(br#"["x", 1]"#).unwrap();
    let lazy = Document::open_lazy(&bytes).unwrap();
    let n = walk::records(&lazy).unwrap().count();
    assert_eq!(n, all(&bytes).len());
}

#[test]
fn record_at_any_offset_never_panics() {
    let bytes = roving::json::from_json(br#"[{"a":"xyz","b":[1,2,{"c":1e100}]}]"#).unwrap();
    let doc = Document::open(&bytes).unwrap();
    for off in 0..bytes.len() + 3 {
        if let Ok(r) = walk::record_at(&doc, off) {
            let _ = r.slots().count();
            let _ = r.value();
        }
    }
}

/// A document with a record of every type: integers of 16 to 64 bits (the
/// encoder writes the values of `i8` inline, in slots of 2 bytes), a
/// big integer, floats of the three encodings, both timestamps, short and
/// long strings, bytes, an extension value, vectors, arrays, maps of a
/// shape with a hash index (more than 8 keys), and slots of 2 bytes.
fn every_record_type() -> Vec<u8> {
    let mut enc = Encoder::new();
    enc.begin_array().unwrap();
    for i in [-100i64, -30_000, 1 << 20, 1 << 40] {
        enc.i64(i).unwrap();
    }
    enc.u64(u64::MAX).unwrap();
    enc.i128(1i128 << 100).unwrap();
    enc.i128(-(1i128 << 100)).unwrap();
    for f in [0.1, 1.5, 1e300] {
        enc.f64(f).unwrap();
    }
    enc.timestamp(Timestamp::new(7, 8, None).unwrap()).unwrap();
    enc.timestamp(Timestamp::new(7, 8, Some(-3600)).unwrap())
        .unwrap();
    enc.str("short").unwrap();
    enc.str(&"long ".repeat(20)).unwrap();
    enc.bytes(b"\x00\xff").unwrap();
    enc.ext(42, b"payload").unwrap();
    enc.vector(&[1.5f64, -2.5]).unwrap();
    enc.vector(&[1u8, 2, 3]).unwrap();
    enc.vector(&[-1i32]).unwrap();
    for row in 0..2 {
        enc.begin_map().unwrap();
        for k in 0..10 {
            enc.key(&format!("k{k}")).unwrap();
            enc.i64(row * 10 + k).unwrap();
        }
        enc.end_map().unwrap();
    }
    enc.end_array().unwrap();
    enc.finish().unwrap()
}

#[test]
fn every_record_type_is_walked() {
    let bytes = every_record_type();
    let recs = all(&bytes);
    check_tiling(&bytes, &recs);
    let encodings: Vec<&str> = recs.iter().map(|r| r.encoding()).collect();
    for want in [
        "i16",
        "i32",
        "i64",
        "u64",
        "bigint",
        "decimal",
        "f32",
        "f64",
        "timestamp",
        "timestamp+offset",
        "short str",
        "str",
        "bytes",
        "ext",
        "vector<f64>",
        "vector<u8>",
        "vector<i32>",
        "map/1",
        "shape/1",
        "array/2",
        "root/1",
    ] {
        assert!(encodings.contains(&want), "{want} in {encodings:?}");
    }
    for r in &recs {
        // The walk agrees with the layout's own record end.
        assert_eq!(
            roving::layout::record_end(&bytes, r.offset()),
            Some(r.end())
        );
        assert_eq!(r.slots().count(), r.slot_count());
        assert_eq!(r.slot_bytes(), r.slot_count() * r.width());
        assert_eq!(r.shape().is_some(), r.kind() == Kind::Map);
        assert!(
            r.encoding().starts_with(r.kind().name())
                || matches!(
                    (r.kind(), r.encoding()),
                    (Kind::Str, "short str")
                        | (Kind::Int, "i8" | "i16" | "i32" | "i64")
                        | (Kind::UInt, "u64")
                        | (Kind::Float, "f32" | "f64" | "decimal")
                ),
            "{:?} {}",
            r.kind(),
            r.encoding()
        );
        if r.kind().has_slots() {
            assert!(r.value().is_none());
        } else {
            assert!(r.value().is_some(), "{}", r.encoding());
        }
    }
    // Random access at every offset: a record, or an error.
    let doc = Document::open(&bytes).unwrap();
    for off in 0..bytes.len() + 2 {
        if let Ok(r) = walk::record_at(&doc, off) {
            assert!(r.end() <= bytes.len());
            assert_eq!(r.slots().count(), r.slot_count());
            let _ = r.value();
        }
    }
}

#[test]
fn every_truncation_and_bit_flip_of_every_record_type() {
    check_truncations_and_flips(&every_record_type());
}

#[test]
fn record_at_errors_say_why() {
    use roving::ErrorKind;
    let bytes = roving::json::from_json(br#"["x", 1e300]"#).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let recs = all(&bytes);
    // Inside the string "x": its byte 0x78 is no tag.
    let x = recs.iter().find(|r| r.encoding() == "short str").unwrap();
    let e = walk::record_at(&doc, x.offset() + 1).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (&ErrorKind::UnknownTag(b'x'), Some(x.offset() as u64 + 1))
    );
    // The header is no record.
    for off in 0..roving::format::HEADER_LEN {
        let e = walk::record_at(&doc, off).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::BadReference);
    }
    // Past the end: cut short.
    let e = walk::record_at(&doc, bytes.len()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Truncated);
}
