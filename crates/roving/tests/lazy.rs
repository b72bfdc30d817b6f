//! Lazily checked documents (`Document::open_lazy`): on any bytes, walking
//! never panics and never hands out a `&str` that is not UTF-8; on valid
//! bytes, a lazy document reads exactly like a validated one; malformed
//! spots are reported by the `try_` accessors.

mod common;
use common::Rng;

use proptest::prelude::*;
use roving::{Document, ErrorKind, KeyHandle, Value};

fn people(n: usize) -> Vec<u8> {
    let path = common::repo_data("1000people.json");
    let all: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let some = serde_json::Value::Array(all.as_array().unwrap()[..n].to_vec());
    roving::json::from_json(serde_json::to_string(&some).unwrap().as_bytes()).unwrap()
}

fn utf8(s: &str) {
    assert!(
        std::str::from_utf8(s.as_bytes()).is_ok(),
        "a &str that is not UTF-8: {:02x?}",
        s.as_bytes()
    );
}

/// Calls every accessor on `v` and on up to a few children, recursively,
/// within `budget` values: must not panic, and every `&str` must be UTF-8.
fn poke(v: Value<'_>, budget: &mut usize, handle: &KeyHandle) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let _ = v.type_name();
    if let Some(s) = v.as_str() {
        utf8(s);
    }
    for p in ["[0]", "[1].name", "name", "[0][\"a\"]"] {
        if let Ok(Some(Value::Str(s))) = v.path(p) {
            utf8(s);
        }
        if let Ok(Some(Value::Str(s))) = v.try_path(p) {
            utf8(s);
        }
    }
    match v {
        Value::Array(a) => {
            let n = a.len();
            let _ = a.is_empty();
            for i in [0, 1, n / 2, n.saturating_sub(1), n, usize::MAX] {
                if let Some(x) = a.get(i) {
                    shallow(x);
                }
                if let Ok(Some(x)) = a.try_get(i) {
                    shallow(x);
                }
                let _ = v.try_index(i);
            }
            for x in a.iter().take(6) {
                poke(x, budget, handle);
            }
        }
        Value::Map(m) => {
            let n = m.len();
            let _ = m.shape_offset();
            for i in [0, 1, n / 2, n.saturating_sub(1), n, usize::MAX] {
                if let Some(k) = m.key_at(i) {
                    utf8(k);
                }
                if let Ok(Some(k)) = m.try_key_at(i) {
                    utf8(k);
                }
                if let Some(x) = m.value_at(i) {
                    shallow(x);
                }
                if let Ok(Some(x)) = m.try_value_at(i) {
                    shallow(x);
                }
            }
            for k in ["name", "a", "", "index", "friends", "zzzzzzzzzzzz"] {
                let _ = m.position(k);
                if let Some(x) = m.get(k) {
                    shallow(x);
                }
                if let Ok(Some(x)) = m.try_get(k) {
                    shallow(x);
                }
            }
            if let Some(x) = m.get_with(handle) {
                shallow(x);
            }
            if let Ok(Some(x)) = m.try_get_with(handle) {
                shallow(x);
            }
            for k in m.keys().take(40) {
                utf8(k);
            }
            // The keys alone read as `iter` reads them.
            assert!(m.keys().take(40).eq(m.iter().take(40).map(|(k, _)| k)));
            for x in m.values().take(3) {
                shallow(x);
            }
            for (k, x) in m.iter().take(6) {
                utf8(k);
                poke(x, budget, handle);
            }
        }
        Value::Vector(x) => {
            let _ = (x.len(), x.get(0), x.get_f64(x.len()), x.to_vec::<f64>());
        }
        Value::BigInt(b) => {
            let _ = b.to_decimal();
        }
        Value::Timestamp(t) => {
            let _ = t.to_rfc3339();
        }
        _ => {}
    }
}

fn shallow(v: Value<'_>) {
    if let Some(s) = v.as_str() {
        utf8(s);
    }
}

/// Opens `bytes` lazily and walks it; whole-value operations must give an
/// error (or a value, if the bytes happen to be valid), never a panic.
fn hostile(bytes: &[u8]) {
    let Ok(doc) = Document::open_lazy(bytes) else {
        // open_lazy rejects exactly what open_trusted rejects: the header,
        // the trailer and the root slot.
        // SAFETY: the result is only compared, never read.
        assert!(unsafe { Document::open_trusted(bytes) }.is_err());
        return;
    };
    assert!(doc.is_lazy());
    let handle = KeyHandle::new("name");
    let mut budget = 3_000;
    poke(doc.root(), &mut budget, &handle);
    let _ = doc.try_root();
    let valid = Document::open(bytes).is_ok();
    let root = doc.root();
    if !valid {
        if root.is_lazy() {
            assert!(roving::json::to_json(root).is_err());
            assert!(roving::from_value::<serde_json::Value>(root).is_err());
            assert!(root.validated().is_err());
            let same = root;
            assert!(
                root != same,
                "an invalid lazy document is unequal to itself"
            );
        }
        assert!(doc.validated().is_err());
    }
}

#[test]
fn lazy_and_validated_documents_read_the_same() {
    let bytes = people(1000);
    let valid = Document::open(&bytes).unwrap();
    let lazy = Document::open_lazy(&bytes).unwrap();
    assert!(lazy.is_lazy() && !valid.is_lazy());
    assert_eq!(trace(lazy.root()), trace(valid.root()));
    assert!(lazy.root() == valid.root());
    assert_eq!(
        roving::json::to_json(lazy.root()).unwrap(),
        roving::json::to_json(valid.root()).unwrap()
    );
    let a: serde_json::Value = roving::from_value(lazy.root()).unwrap();
    let b: serde_json::Value = roving::from_value(valid.root()).unwrap();
    assert_eq!(a, b);
    // The try_ accessors agree with the plain ones on a valid document.
    let h = KeyHandle::new("name");
    for i in 0..1000 {
        let p = lazy.root().try_index(i).unwrap().unwrap();
        let m = p.as_map().unwrap();
        assert_eq!(
            m.try_get("name").unwrap().unwrap().as_str(),
            valid.root().index(i).unwrap().get("name").unwrap().as_str()
        );
        assert_eq!(
            m.try_get_with(&h).unwrap().unwrap().as_str(),
            m.get("name").unwrap().as_str()
        );
        for k in 0..m.len() {
            assert_eq!(m.try_key_at(k).unwrap(), m.key_at(k));
            assert!(m.try_value_at(k).unwrap().is_some());
        }
        assert_eq!(
            m.try_get("no such key").unwrap().map(|v| v.type_name()),
            None
        );
    }
    assert!(lazy.root().try_index(1000).unwrap().is_none());
    assert_eq!(
        lazy.root()
            .try_path("[123].name")
            .unwrap()
            .unwrap()
            .as_str(),
        valid.root().path("[123].name").unwrap().unwrap().as_str()
    );
    assert!(!lazy.validated().unwrap().is_lazy());
    assert!(!lazy.root().validated().unwrap().is_lazy());
}

/// Everything the reader sees, as text (containers by content, not by
/// position, so lazy and validated documents compare equal).
fn trace(v: Value<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(a) => {
                out.push(format!("array {}", a.len()));
                stack.extend(a.iter());
            }
            Value::Map(m) => {
                out.push(format!("map {}", m.len()));
                for (i, (k, x)) in m.iter().enumerate() {
                    assert_eq!(m.key_at(i), Some(k));
                    assert_eq!(m.position(k), Some(i));
                    out.push(format!("key {k:?}"));
                    stack.push(x);
                }
            }
            Value::Vector(x) => out.push(format!("vector {:?} {:?}", x.elem_type(), x.raw())),
            other => out.push(format!("{other:?}")),
        }
    }
    out
}

#[test]
fn bit_flips_and_truncations_of_a_real_document() {
    let doc = people(12);
    for len in 0..doc.len() {
        hostile(&doc[..len]);
    }
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for round in 0..3_000 {
        let mut bad = doc.clone();
        for _ in 0..(1 + rng.next() % 4) {
            let i = (rng.next() % bad.len() as u64) as usize;
            if round % 3 == 0 {
                bad[i] = rng.next() as u8; // a random byte
            } else {
                bad[i] ^= 1 << (rng.next() % 8); // a bit flip
            }
        }
        hostile(&bad);
    }
}

#[test]
fn invalid_utf8_reached_lazily_is_reported() {
    let bytes = roving::json::from_json(br#"{"key":"abcdef","l":["xyz",{"qqq":1}]}"#).unwrap();
    let at = |needle: &[u8]| {
        bytes
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    };

    // A value string.
    let mut bad = bytes.clone();
    let i = at(b"abcdef");
    bad[i + 2] = 0xFF;
    assert_eq!(
        Document::open(&bad).unwrap_err().kind(),
        &ErrorKind::InvalidUtf8
    );
    let doc = Document::open_lazy(&bad).unwrap();
    let root = doc.root();
    assert!(root.get("key").unwrap().is_null());
    let err = root.try_get("key").unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(err.offset(), Some(i as u64 - 1));
    // The rest of the document reads normally.
    assert_eq!(
        root.try_path("l[0]").unwrap().unwrap().as_str(),
        Some("xyz")
    );
    assert_eq!(
        root.get("l")
            .unwrap()
            .index(1)
            .unwrap()
            .get("qqq")
            .unwrap()
            .as_i64(),
        Some(1)
    );
    assert_eq!(
        roving::json::to_json(root).unwrap_err().kind(),
        &ErrorKind::InvalidUtf8
    );
    let same = root;
    assert!(root != same);

    // A key.
    let mut bad = bytes.clone();
    let i = at(b"qqq");
    bad[i] = 0xC3; // a lead byte without its continuation
    let doc = Document::open_lazy(&bad).unwrap();
    let m = doc
        .root()
        .try_path("l[1]")
        .unwrap()
        .unwrap()
        .as_map()
        .unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m.key_at(0), None);
    assert_eq!(m.try_key_at(0).unwrap_err().kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(m.keys().collect::<Vec<_>>(), vec![""]);
    assert_eq!(m.value_at(0).unwrap().as_i64(), Some(1));

    // A string reached through iteration reads as null.
    let mut bad = bytes.clone();
    bad[at(b"xyz") + 1] = 0x80;
    let doc = Document::open_lazy(&bad).unwrap();
    let l = doc.root().get("l").unwrap().as_array().unwrap();
    assert!(l.iter().next().unwrap().is_null());
    assert_eq!(l.try_get(0).unwrap_err().kind(), &ErrorKind::InvalidUtf8);
}

#[test]
fn malformed_slots_are_reported() {
    // [1, "ab"]: break the reference to "ab" so that it points forward.
    let bytes = roving::json::from_json(br#"[1,"ab"]"#).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let arr = doc.root().as_array().unwrap();
    let pos = arr.offset().unwrap();
    let mut bad = bytes.clone();
    // Slot 1 of the 1-byte-slot array: tag, varint count, slot 0, slot 1.
    bad[pos + 3] = 0b1111_1110; // absolute reference to offset 63: not before the array
    let lazy = Document::open_lazy(&bad).unwrap();
    let a = lazy.root().as_array().unwrap();
    assert_eq!(a.get(0).unwrap().as_i64(), Some(1));
    assert!(a.get(1).unwrap().is_null());
    assert_eq!(a.try_get(1).unwrap_err().kind(), &ErrorKind::BadReference);
    bad[pos + 3] = (7 << 2) | 3; // special constant 7: undefined
    let lazy = Document::open_lazy(&bad).unwrap();
    let a = lazy.root().as_array().unwrap();
    assert_eq!(a.try_get(1).unwrap_err().kind(), &ErrorKind::BadImmediate);
    bad[pos + 3] = 3; // null: a genuine null is not an error
    let lazy = Document::open_lazy(&bad).unwrap();
    let a = lazy.root().as_array().unwrap();
    assert!(a.try_get(1).unwrap().unwrap().is_null());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Random bodies between a valid header and a random root record.
    #[test]
    fn random_bytes_never_panic(
        body in prop::collection::vec(any::<u8>(), 0..160),
        wc in 0u8..4,
        slot in any::<u64>(),
    ) {
        let mut b = b"RV\x01".to_vec();
        b.extend_from_slice(&body);
        let t = 0x1C | wc;
        b.push(t);
        b.extend_from_slice(&slot.to_le_bytes()[..1 << wc]);
        b.push(t);
        hostile(&b);
        hostile(&body);
    }

    /// Random JSON documents: lazy and validated reads agree.
    #[test]
    fn lazy_agrees_with_validated(v in json()) {
        let bytes = roving::json::from_json(v.to_string().as_bytes()).unwrap();
        let lazy = Document::open_lazy(&bytes).unwrap();
        let valid = Document::open(&bytes).unwrap();
        prop_assert_eq!(trace(lazy.root()), trace(valid.root()));
        prop_assert!(lazy.root() == valid.root());
    }

    /// Random JSON documents with a few bytes changed.
    #[test]
    fn damaged_json_documents_never_panic(
        v in json(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4),
    ) {
        let mut bytes = roving::json::from_json(v.to_string().as_bytes()).unwrap();
        for (i, x) in edits {
            let n = bytes.len();
            bytes[i % n] = x;
        }
        hostile(&bytes);
    }
}

fn json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::{json, Value as J};
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        (-100.0f64..100.0).prop_map(|f| json!(f)),
        ".{0,20}".prop_map(J::String),
        prop::sample::select(vec!["name", "a", "é", "日本"]).prop_map(|s| J::String(s.into())),
    ];
    leaf.prop_recursive(4, 80, 12, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(J::Array),
            prop::collection::btree_map(
                prop_oneof![".{0,6}", Just("name".to_string()), Just("a".to_string())],
                inner,
                0..12
            )
            .prop_map(|m| J::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn adopt_marks_values_of_the_validated_document_only() {
    let bytes = people(10);
    let other = people(10);
    let lazy = Document::open_lazy(&bytes).unwrap();
    let v = lazy.root().try_index(3).unwrap().unwrap();
    assert!(v.is_lazy());
    // A lazy document adopts nothing.
    assert!(lazy.adopt(v).is_lazy());
    // Another buffer's validated document does not adopt it either.
    let foreign = Document::open(&other).unwrap();
    assert!(foreign.adopt(v).is_lazy());
    let valid = lazy.validated().unwrap();
    let w = valid.adopt(v);
    assert!(!w.is_lazy());
    assert!(w == v);
    assert_eq!(
        roving::json::to_json(w).unwrap(),
        roving::json::to_json(v).unwrap()
    );
    // Scalars are returned as they are.
    assert_eq!(valid.adopt(Value::Int(7)).as_i64(), Some(7));
}
