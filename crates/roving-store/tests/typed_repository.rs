//! A small repository layer as a Rust service developer writes it on the
//! store from the crate docs: typed items in and out with serde, `?` on
//! both crates' errors, pending changes, flush, reload, a second handle,
//! iteration and errors a caller can act on.

use std::ops::Bound;

use roving_store::{Result, Store, StoreErrorKind, StoreOptions};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct Item {
    name: String,
    qty: u32,
    tags: Vec<String>,
}

struct Repo {
    store: Store,
}

impl Repo {
    fn open(path: &std::path::Path) -> Result<Repo> {
        Ok(Repo {
            store: Store::open(path, &StoreOptions::default())?,
        })
    }

    fn add(&mut self, key: &str, item: &Item) -> Result<()> {
        self.store.put(key, roving::to_vec(item)?)
    }

    fn item(&self, key: &str) -> Result<Option<Item>> {
        match self.store.get(key)? {
            Some(doc) => Ok(Some(roving::from_value(doc.root())?)),
            None => Ok(None),
        }
    }

    /// Read-modify-write: owned items, so the borrow of the store ends
    /// before the put.
    fn restock(&mut self, key: &str, n: u32) -> Result<bool> {
        let Some(mut item) = self.item(key)? else {
            return Ok(false);
        };
        item.qty += n;
        self.add(key, &item)?;
        Ok(true)
    }

    fn names_after(&self, key: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for r in self.store.iter_from(Bound::Excluded(key)) {
            let (_, doc) = r?;
            out.push(
                doc.root()
                    .get("name")
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_owned(),
            );
        }
        Ok(out)
    }
}

fn item(name: &str, qty: u32) -> Item {
    Item {
        name: name.into(),
        qty,
        tags: vec!["fruit".into()],
    }
}

#[test]
fn a_repository_on_the_store() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("repo.rvs");
    let mut repo = Repo::open(&path)?;
    repo.add("a", &item("apple", 1))?;
    repo.add("b", &item("pear", 2))?;
    assert_eq!(
        repo.item("a")?,
        Some(item("apple", 1)),
        "pending reads back"
    );
    assert!(repo.store.is_dirty());

    // Another handle sees only committed states, after a reload.
    let mut other = Store::open(&path, &StoreOptions::default())?;
    assert!(!other.contains("a")?);
    repo.store.flush()?;
    assert!(!other.contains("a")?);
    other.reload()?;
    assert!(other.contains("a")?);

    assert!(repo.restock("b", 5)?);
    assert!(!repo.restock("zzz", 5)?);
    assert_eq!(repo.item("b")?.map(|i| i.qty), Some(7));
    repo.store.reload()?; // drops the restock
    assert_eq!(repo.item("b")?.map(|i| i.qty), Some(2));

    repo.add("c", &item("fig", 3))?;
    assert_eq!(repo.names_after("a")?, ["pear", "fig"]);
    repo.store.flush()?;
    drop(repo);

    // Reopened read-only: everything flushed is there, writes refused.
    let ro = Store::open(&path, &StoreOptions::default().readonly(true))?;
    assert_eq!(ro.len()?, 3);
    let mut ro = ro;
    let err = ro.put("d", roving::to_vec(&item("kiwi", 1))?).unwrap_err();
    assert_eq!(err.kind(), StoreErrorKind::ReadOnly);
    assert_eq!(err.path(), Some(path.as_path()));

    // A record of another type is an error of kind Document, not a panic.
    let mut rw = Store::open(&path, &StoreOptions::default())?;
    rw.put("odd", roving::to_vec(&[1, 2, 3])?)?;
    let repo = Repo { store: rw };
    assert_eq!(
        repo.item("odd").unwrap_err().kind(),
        StoreErrorKind::Document
    );
    Ok(())
}
