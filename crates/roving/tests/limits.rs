//! The resource limits as documented (`docs/FORMAT.md` section 15.2,
//! `Limits`, the encoder's depth limit): their defaults, and the depths
//! and sizes each converter (`to_json`, `from_slice`, `from_value`) takes.

use roving::json::{to_json, to_json_pretty, JsonOptions};
use roving::{Document, Encoder, ErrorKind, Limits};

/// A document of `n` arrays nested inside one another around `0`.
fn nested_arrays(n: usize) -> Vec<u8> {
    let mut e = Encoder::new();
    e.set_max_depth(n);
    for _ in 0..n {
        e.begin_array().unwrap();
    }
    e.i64(0).unwrap();
    for _ in 0..n {
        e.end_array().unwrap();
    }
    e.finish().unwrap()
}

/// `Limits::for_len`: depth 10,000 and `max(16 * len, 10,000,000)` values;
/// `Limits::none()` has no limits; `BYTES_PER_VALUE` is 16;
/// `JsonOptions::default()` has `Limits::for_len(0)`.
#[test]
fn default_limits_are_as_documented() {
    assert_eq!(roving::BYTES_PER_VALUE, 16);
    let small = Limits::for_len(100);
    assert_eq!((small.max_depth, small.max_values), (10_000, 10_000_000));
    let large = Limits::for_len(1_000_000);
    assert_eq!((large.max_depth, large.max_values), (10_000, 16_000_000));
    assert_eq!(Limits::for_len(usize::MAX).max_values, u64::MAX);
    assert_eq!(
        (Limits::none().max_depth, Limits::none().max_values),
        (usize::MAX, u64::MAX)
    );
    let opts = JsonOptions::default();
    assert_eq!(opts.limits, Limits::for_len(0));
    assert_eq!(opts.indent, None);
    assert!(opts.ext_text.is_none());
    assert_eq!(roving::encode::DEFAULT_MAX_DEPTH, 100_000);
}

/// `Encoder::set_max_depth(n)`: `n` containers nest, the next
/// `begin_array`/`begin_map` fails with `DepthLimit`.
#[test]
fn the_encoder_depth_limit_counts_open_containers() {
    let mut e = Encoder::new();
    e.set_max_depth(3);
    for _ in 0..3 {
        e.begin_array().unwrap();
    }
    assert_eq!(e.depth(), 3);
    assert_eq!(e.begin_map().unwrap_err().kind(), &ErrorKind::DepthLimit);
    assert_eq!(e.begin_array().unwrap_err().kind(), &ErrorKind::DepthLimit);
}

/// `to_json` takes `Limits::for_len`: 10,000 levels of containers are
/// written, 10,001 are a `DepthLimit` error.
#[test]
fn to_json_writes_ten_thousand_levels() {
    let ok = nested_arrays(10_000);
    let text = to_json(Document::open(&ok).unwrap().root()).unwrap();
    assert_eq!(text.len(), 2 * 10_000 + 1);
    let deep = nested_arrays(10_001);
    let doc = Document::open(&deep).unwrap();
    assert_eq!(
        to_json(doc.root()).unwrap_err().kind(),
        &ErrorKind::DepthLimit
    );
    let e = to_json_pretty(doc.root(), 1).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
}

/// `from_slice` and `from_value` read 256 levels, not 257 (`DepthLimit`),
/// whatever the document's size.
#[test]
fn serde_decoding_reads_256_levels() {
    let ok = nested_arrays(256);
    let v: serde_json::Value = roving::from_slice(&ok).unwrap();
    assert!(v.is_array());
    let v: serde_json::Value = roving::from_value(Document::open(&ok).unwrap().root()).unwrap();
    assert!(v.is_array());
    let deep = nested_arrays(257);
    let e = roving::from_slice::<serde_json::Value>(&deep).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
    let e =
        roving::from_value::<serde_json::Value>(Document::open(&deep).unwrap().root()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
}

/// `to_json`, `to_json_pretty` and `from_value` take `Limits::for_len` of
/// the value's document, whatever the value: a document whose root is one
/// long vector (a scalar, which does not know its document) converts as
/// its 16 values per byte allow. It was held to `Limits::for_len(0)`, 10
/// million values: a 10 MB root vector of bytes was an `ExpansionLimit`.
#[test]
fn a_long_root_vector_converts() {
    let n = 10_000_001;
    let data = vec![7u8; n];
    let mut e = Encoder::new();
    e.vector(&data).unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    let text = to_json(doc.root()).unwrap();
    assert_eq!(text.len(), 2 * n + 1);
    let back: Vec<u8> = roving::from_value(doc.root()).unwrap();
    assert_eq!(back.len(), n);
    let back: Vec<u8> = roving::from_slice(&bytes).unwrap();
    assert_eq!(back.len(), n);
}
