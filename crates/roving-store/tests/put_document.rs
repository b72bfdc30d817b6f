//! `Store::put_document` takes a `Document`, which may have been opened
//! lazily (`Document::open_lazy`: O(1), nothing validated). Pending
//! documents are read back without validation (`get`, `record`, `iter`),
//! so such a document must be validated when it is put, as `put` does:
//! otherwise safe code could read a `&str` that is not UTF-8.

use roving::Document;
use roving_store::{Store, StoreErrorKind, StoreOptions};

/// A document whose root string is not UTF-8: header and trailer intact,
/// so `open_lazy` accepts it and `open` does not.
fn bad_utf8_doc() -> Vec<u8> {
    let mut e = roving::Encoder::new();
    e.str("zzzz").unwrap();
    let mut b = e.finish().unwrap();
    let at = b.windows(4).position(|w| w == b"zzzz").unwrap();
    b[at..at + 4].copy_from_slice(b"\xff\xfe\xff\xfe");
    assert!(Document::open(&b).is_err());
    b
}

#[test]
fn a_lazily_opened_invalid_document_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let bytes = bad_utf8_doc();
    let doc = Document::open_lazy(&bytes).unwrap();
    let err = store.put_document("k", doc).unwrap_err();
    assert_eq!(err.kind(), StoreErrorKind::InvalidDocument);
    assert!(err.message().contains("\"k\""), "{err}");
    assert!(!store.contains("k").unwrap());
    assert!(!store.is_dirty());
}

#[test]
fn a_lazily_opened_valid_document_is_put() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let bytes = roving::json::from_json(br#"{"name":"Ada"}"#).unwrap();
    store
        .put_document("k", Document::open_lazy(&bytes).unwrap())
        .unwrap();
    let doc = store.get("k").unwrap().unwrap();
    assert_eq!(doc.root().get("name").and_then(|v| v.as_str()), Some("Ada"));
    store.flush().unwrap();
    assert_eq!(store.get_bytes("k").unwrap(), Some(&bytes[..]));
}

/// An invalid document names the store's path, as every other error of a
/// put does (an invalid key, a read-only store).
#[test]
fn an_invalid_document_error_names_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let key_err = store.put("", roving::to_vec(&1).unwrap()).unwrap_err();
    assert_eq!(key_err.path(), Some(store.path()));
    let err = store.put("k", b"nope".to_vec()).unwrap_err();
    assert_eq!(err.kind(), StoreErrorKind::InvalidDocument);
    assert_eq!(err.path(), Some(store.path()), "{err}");
    let bytes = bad_utf8_doc();
    let err = store
        .put_document("k", Document::open_lazy(&bytes).unwrap())
        .unwrap_err();
    assert_eq!(err.path(), Some(store.path()), "{err}");
}

/// The validation error behind an `InvalidDocument` error is its source,
/// with its kind and offset, as for errors converted from roving's.
#[test]
fn an_invalid_document_error_has_the_roving_error_as_source() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let mut bytes = roving::to_vec(&["a", "b"]).unwrap();
    bytes.pop();
    let err = store.put("k", bytes).unwrap_err();
    let source = std::error::Error::source(&err)
        .and_then(|s| s.downcast_ref::<roving::Error>())
        .expect("the validation error is the source");
    assert_eq!(source.kind(), &roving::ErrorKind::BadTrailer);
    assert!(source.offset().is_some());
}
