//! The store's errors: the names of their kinds, their text (with the
//! store's path once known), `NotFound` for opens that make nothing, and
//! `?` on the roving core's errors in a function that returns the store's
//! `Result` (`roving::to_vec`, `roving::from_value` of a record): they
//! become a `StoreError` of kind `Document` whose source is the
//! `roving::Error`, its kind, offset and path kept.

mod common;

use roving_store::{Result, Store, StoreError, StoreErrorKind, StoreOptions};

use common::tmp;

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Item<'a> {
    name: &'a str,
    qty: u32,
}

fn save(store: &mut Store, key: &str, item: &Item<'_>) -> Result<()> {
    store.put(key, roving::to_vec(item)?)?;
    store.flush()
}

fn load<'s>(store: &'s Store, key: &str) -> Result<Option<Item<'s>>> {
    match store.get(key)? {
        Some(doc) => Ok(Some(roving::from_value(doc.root())?)),
        None => Ok(None),
    }
}

#[test]
fn roving_errors_convert_with_question_mark() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("s.rvs"), &StoreOptions::default()).unwrap();
    let pear = Item {
        name: "pear",
        qty: 2,
    };
    save(&mut store, "pear", &pear).unwrap();
    assert_eq!(load(&store, "pear").unwrap(), Some(pear));
    assert_eq!(load(&store, "fig").unwrap(), None);

    store.put("bad", roving::to_vec(&[1, 2]).unwrap()).unwrap();
    let err = load(&store, "bad").unwrap_err();
    assert_eq!(err.kind(), StoreErrorKind::Document);
    assert_eq!(err.kind().name(), "document");
    let source = std::error::Error::source(&err)
        .and_then(|s| s.downcast_ref::<roving::Error>())
        .expect("the roving error is the source");
    assert_eq!(source.kind(), &roving::ErrorKind::TypeMismatch);
    assert_eq!(err.message(), source.to_string());
}

/// Error kinds' names, and the text of an error: `store PATH: message`
/// once the path is known.
#[test]
fn error_names_and_text() {
    let names = [
        (StoreErrorKind::NotFound, "not-found"),
        (StoreErrorKind::NotAStore, "not-a-store"),
        (StoreErrorKind::Corrupt, "corrupt"),
        (StoreErrorKind::InvalidKey, "invalid-key"),
        (StoreErrorKind::InvalidDocument, "invalid-document"),
        (StoreErrorKind::ReadOnly, "read-only"),
        (StoreErrorKind::Busy, "busy"),
        (StoreErrorKind::Closed, "closed"),
        (StoreErrorKind::PermissionDenied, "permission-denied"),
        (StoreErrorKind::TooLarge, "too-large"),
        (StoreErrorKind::Io, "io"),
        (StoreErrorKind::Lmdb, "lmdb"),
        (StoreErrorKind::Document, "document"),
    ];
    for (kind, name) in names {
        assert_eq!(kind.name(), name);
    }
    let e = StoreError::new(StoreErrorKind::Busy, "wait");
    assert_eq!(e.to_string(), "wait");
    let p = std::path::Path::new("/x/y.rvs");
    let e = e.with_path(p).with_path(std::path::Path::new("/other"));
    assert_eq!(e.to_string(), "store /x/y.rvs: wait");
    assert_eq!((e.message(), e.path()), ("wait", Some(p)));
    // A read-only open of a missing store is NotFound, and names the path.
    let (d, path) = tmp();
    let e = Store::open(&path, &StoreOptions::default().readonly(true)).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound);
    assert!(e.to_string().starts_with("store "), "{e}");
    // So is an open with `create(false)`, which makes nothing, and opens
    // the store once there is one, for writing.
    let no_create = StoreOptions::default().create(false);
    let e = Store::open(&path, &no_create).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound, "{e}");
    assert!(!path.exists());
    let empty_dir = d.path().join("empty");
    std::fs::create_dir(&empty_dir).unwrap();
    let e = Store::open(&empty_dir, &no_create).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound, "{e}");
    assert_eq!(std::fs::read_dir(&empty_dir).unwrap().count(), 0);
    drop(Store::open(&path, &StoreOptions::default()).unwrap());
    let mut s = Store::open(&path, &no_create).unwrap();
    s.put("k", roving::to_vec(&1).unwrap()).unwrap();
    s.flush().unwrap();
    // So is an open in a directory that does not exist.
    let e = Store::open(d.path().join("no/such/dir.rvs"), &StoreOptions::default()).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::NotFound, "{e}");
}
