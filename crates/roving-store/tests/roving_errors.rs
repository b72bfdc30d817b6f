//! A function that returns the store's `Result` can use `?` on the roving
//! core's errors too (`roving::to_vec`, `roving::from_value` of a record):
//! they become a `StoreError` of kind `Document` whose source is the
//! `roving::Error`, its kind, offset and path kept.

use roving_store::{Result, Store, StoreErrorKind, StoreOptions};

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
