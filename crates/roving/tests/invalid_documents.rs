//! Bytes that are not a valid document, as `Document::open`,
//! `open_lazy` and `open_trusted` and the reader report them
//! (`docs/FORMAT.md` sections 16.1 and 16.5): header and trailer errors,
//! and a lazily opened document's invalid strings and keys.

use roving::json::to_json;
use roving::{Document, ErrorKind};

/// The header and trailer errors of `Document::open` (section 16.1 rules 1
/// and 2, as the README and the error kinds describe them).
#[test]
fn short_and_foreign_inputs_are_told_apart() {
    let kind = |b: &[u8]| Document::open(b).unwrap_err().kind().clone();
    assert_eq!(kind(b""), ErrorKind::Truncated);
    assert_eq!(kind(b"R"), ErrorKind::Truncated);
    assert_eq!(kind(b"RV"), ErrorKind::Truncated);
    assert_eq!(kind(b"X"), ErrorKind::BadMagic);
    assert_eq!(kind(b"{}"), ErrorKind::BadMagic);
    assert_eq!(
        kind(b"RV\x03\x1c\x03\x1c"),
        ErrorKind::UnsupportedVersion(3)
    );
    assert_eq!(kind(b"RV\x01"), ErrorKind::BadTrailer);
    let lazy = |b: &[u8]| Document::open_lazy(b).unwrap_err().kind().clone();
    let trusted = |b: &[u8]| {
        // SAFETY: the inputs end before any record: `open_trusted` checks
        // the header and the trailer, and fails on them.
        unsafe { Document::open_trusted(b) }
            .unwrap_err()
            .kind()
            .clone()
    };
    for open in [lazy, trusted] {
        assert_eq!(open(b"RV"), ErrorKind::Truncated);
        assert_eq!(open(b"RV\x01"), ErrorKind::BadTrailer);
        assert_eq!(open(b"XV\x01\x1c\x03\x1c"), ErrorKind::BadMagic);
    }
}

/// A lazily opened document whose bytes do not validate: its containers
/// are unequal to everything, themselves included (`PartialEq for Value`),
/// and whole-value operations report the validation error (16.5).
#[test]
fn an_invalid_lazy_document_is_unequal_to_everything() {
    // A one-byte short string record that is not UTF-8 (at 3), an array
    // of one slot referring to it (at 5, relative distance 2: `2 << 2`),
    // the root record referring to the array (at 8, distance 3: `3 << 2`).
    let b = [
        b'R',
        b'V',
        1,
        0x81,
        0xFF,
        0x10,
        1,
        2 << 2,
        0x1C,
        3 << 2,
        0x1C,
    ];
    assert_eq!(
        roving::validate(&b).unwrap_err().kind(),
        &ErrorKind::InvalidUtf8
    );
    let lazy = Document::open_lazy(&b).unwrap();
    let root = lazy.root();
    assert!(root.as_array().is_some(), "{root:?}");
    assert!(root != root);
    assert!(root.validated().is_err());
    assert!(to_json(root).is_err());
    assert!(roving::from_value::<serde_json::Value>(root).is_err());
    // The element reads as null; the `try_` accessor says why.
    assert!(root.index(0).unwrap().is_null());
    let e = root.try_index(0).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
}

/// In a lazily opened document, a key that is not UTF-8 is absent to
/// lookups and `key_at`, reads as `""` when iterating, and `try_key_at`
/// reports it (FORMAT.md 16.5, `Document::open_lazy`).
#[test]
fn an_invalid_key_of_a_lazy_document() {
    // A one-byte key that is not UTF-8 (at 3), a shape of that key (at 5,
    // key slot at distance 2), a map of that shape (at 8, shape at
    // distance 3: `3 << 1`, value 1 inline: `1 << 2 | 1`), the root (at
    // 11, map at distance 3).
    let b = [
        b'R',
        b'V',
        1,
        0x81,
        0xFF,
        0x18,
        1,
        2 << 2,
        0x14,
        3 << 1,
        1 << 2 | 1,
        0x1C,
        3 << 2,
        0x1C,
    ];
    assert_eq!(
        roving::validate(&b).unwrap_err().kind(),
        &ErrorKind::InvalidUtf8
    );
    let doc = Document::open_lazy(&b).unwrap();
    let m = doc.root().as_map().unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m.key_at(0), None);
    assert_eq!(m.get("\u{fffd}"), None);
    let entries: Vec<(&str, Option<i64>)> = m.iter().map(|(k, v)| (k, v.as_i64())).collect();
    assert_eq!(entries, [("", Some(1))]);
    assert_eq!(m.try_key_at(0).unwrap_err().kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(m.try_value_at(0).unwrap().and_then(|v| v.as_i64()), Some(1));
}
