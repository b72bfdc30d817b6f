//! The expansion limit counts what a conversion copies out, not only how
//! many values it visits: a small document that shares one long string,
//! big integer, vector or key between millions of places, or whose pretty
//! JSON is indented deep, must stop with `ExpansionLimit` (found by the
//! `linear_time` fuzz target: a 3 KB document made `to_json` allocate
//! gigabytes and abort, and a shared big integer made it run for minutes).

use roving::json::JsonOptions;
use roving::{Document, Encoder, ErrorKind, Limits, BYTES_PER_VALUE};

/// A document whose root array holds `levels` nested arrays, each holding
/// two references to the one below, around an array of the value `leaf`
/// writes: 2^levels copies of it as a tree, in a few bytes more than it.
fn shared(levels: usize, leaf: impl FnOnce(&mut Encoder)) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.begin_array().unwrap();
    leaf(&mut e);
    let mut last = e.end_array().unwrap();
    for _ in 0..levels {
        e.begin_array().unwrap();
        e.reuse(last).unwrap();
        e.reuse(last).unwrap();
        last = e.end_array().unwrap();
    }
    e.end_array().unwrap();
    e.finish().unwrap()
}

/// Runs the default JSON conversions on `bytes`, which must stop with
/// `ExpansionLimit`.
fn json_stops(bytes: &[u8]) {
    let doc = Document::open(bytes).unwrap();
    let e = roving::json::to_json(doc.root()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ExpansionLimit, "to_json: {e}");
    let e = roving::json::to_json_pretty(doc.root(), 2).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ExpansionLimit, "to_json_pretty: {e}");
}

/// Runs the default conversions (JSON, pretty JSON, serde) on `bytes`,
/// which all must stop with `ExpansionLimit`.
fn all_stop(bytes: &[u8]) {
    json_stops(bytes);
    let e = roving::from_slice::<serde_json::Value>(bytes).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ExpansionLimit, "from_slice: {e}");
}

#[test]
fn a_shared_long_string_is_limited() {
    let s = "x".repeat(3000);
    let b = shared(24, |e| e.str(&s).unwrap());
    assert!(b.len() < 3200, "{} bytes", b.len());
    all_stop(&b);
    // Typed decoding copies too.
    let e = roving::from_slice::<Vec<Vec<serde_json::Value>>>(&b).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ExpansionLimit, "{e}");
}

#[test]
fn a_shared_long_key_is_limited() {
    let k = "k".repeat(3000);
    let b = shared(24, |e| {
        e.begin_map().unwrap();
        e.key(&k).unwrap();
        e.null().unwrap();
        e.end_map().unwrap();
    });
    all_stop(&b);
}

#[test]
fn shared_bytes_and_vectors_are_limited() {
    // (serde_json values hold no byte strings: JSON only for those.)
    json_stops(&shared(24, |e| e.bytes(&[7; 3000]).unwrap()));
    json_stops(&shared(24, |e| e.ext(9, &[7; 3000]).unwrap()));
    all_stop(&shared(24, |e| e.vector(&[7u8; 3000]).unwrap()));
}

#[test]
fn a_shared_big_integer_is_limited() {
    // 1700 bytes: 4095 digits, within `MAX_DECIMAL_DIGITS`. (The converters
    // also convert a shared one to decimal once, not at every place.)
    let b = shared(24, |e| e.bigint_le(false, &[0xAB; 1700]).unwrap());
    all_stop(&b);
    // Longer, it has no decimal text at all (tests/bigint_text.rs).
    let b = shared(24, |e| e.bigint_le(false, &[0xAB; 3000]).unwrap());
    let doc = Document::open(&b).unwrap();
    let e = roving::json::to_json(doc.root()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Unsupported, "to_json: {e}");
    let e = roving::from_slice::<serde_json::Value>(&b).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Unsupported, "from_slice: {e}");
}

#[test]
fn deep_indentation_is_limited() {
    // 3000 levels of nesting around 2^20 shared small integers: the pretty
    // JSON would indent each of them by 3000 * 8 spaces (25 GB).
    let mut e = Encoder::new();
    for _ in 0..3000 {
        e.begin_array().unwrap();
    }
    e.i64(1).unwrap();
    let mut last = e.end_array().unwrap();
    for _ in 0..20 {
        e.begin_array().unwrap();
        e.reuse(last).unwrap();
        e.reuse(last).unwrap();
        last = e.end_array().unwrap();
    }
    for _ in 0..2999 {
        e.end_array().unwrap();
    }
    let b = e.finish().unwrap();
    let doc = Document::open(&b).unwrap();
    let e = roving::json::to_json_pretty(doc.root(), 8).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::ExpansionLimit, "{e}");
    // Compact output is small enough.
    assert!(roving::json::to_json(doc.root()).is_ok());
}

#[test]
fn the_json_output_stays_within_the_limit() {
    let s = "y".repeat(1000);
    let b = shared(20, |e| e.str(&s).unwrap());
    let doc = Document::open(&b).unwrap();
    for indent in [None, Some(4)] {
        let opts = JsonOptions {
            indent,
            limits: Limits {
                max_depth: 100,
                max_values: 100_000,
            },
            ext_text: None,
        };
        let mut out = b"prefix".to_vec();
        let e = roving::json::write_json(doc.root(), &opts, &mut out).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::ExpansionLimit);
        // At most one value written past the limit.
        assert!(
            out.len() <= 100_000 * BYTES_PER_VALUE + 1100,
            "{} bytes of output",
            out.len()
        );
    }
}

#[test]
fn legitimate_documents_convert() {
    // No sharing: one long string and one long big integer (1500 bytes,
    // 3613 digits, within `MAX_DECIMAL_DIGITS`) convert.
    let s = "z".repeat(100_000);
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.str(&s).unwrap();
    e.bigint_le(true, &[0x5A; 1500]).unwrap();
    e.vector(&[1.5f64; 1000]).unwrap();
    e.end_array().unwrap();
    let b = e.finish().unwrap();
    let doc = Document::open(&b).unwrap();
    let text = roving::json::to_json_pretty(doc.root(), 2).unwrap();
    assert!(text.contains(&s));
    let v: serde_json::Value = roving::from_slice(&b).unwrap();
    assert_eq!(v[0].as_str(), Some(s.as_str()));
    // A string shared a few hundred times (every equal string is stored
    // once) converts.
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for _ in 0..500 {
        e.str(&"w".repeat(200)).unwrap();
    }
    e.end_array().unwrap();
    let b = e.finish().unwrap();
    assert!(roving::json::to_json(Document::open(&b).unwrap().root()).is_ok());
    assert!(roving::from_slice::<Vec<String>>(&b).is_ok());
}
