//! `StoreOptions` as documented: the defaults and setters, and the map
//! size (rounded up to a whole MiB, at least what the file's data takes
//! when reopened).

mod common;

use roving_store::{Store, StoreOptions, MAX_READERS};

use common::tmp;

/// `StoreOptions` defaults: read-write, a 1 GiB map, synced commits, 510
/// reader slots, no page walk, no populate; `new()` is `default()`; the
/// setters set what they name.
#[test]
fn option_defaults_are_as_documented() {
    let o = StoreOptions::default();
    assert!(!o.readonly);
    assert!(o.create);
    assert_eq!(o.map_size, 1 << 30);
    assert!(o.sync);
    assert_eq!(o.max_readers, 510);
    assert!(!o.verify_pages);
    assert!(!o.populate);
    assert_eq!(format!("{:?}", StoreOptions::new()), format!("{o:?}"));
    let o = StoreOptions::new()
        .readonly(true)
        .map_size(5)
        .sync(false)
        .max_readers(7)
        .verify_pages(true)
        .populate(true)
        .create(false);
    assert!(o.readonly && !o.sync && o.verify_pages && o.populate && !o.create);
    assert_eq!((o.map_size, o.max_readers), (5, 7));
    assert_eq!(MAX_READERS, 1 << 20);
}

/// The map size is rounded up to a whole MiB (and a new store's map is
/// what was asked, so rounded).
#[test]
fn map_sizes_are_rounded_up_to_a_mebibyte() {
    for (asked, got) in [
        (1usize, 1usize << 20),
        (1 << 20, 1 << 20),
        ((1 << 20) + 1, 2 << 20),
        ((3 << 20) - 7, 3 << 20),
    ] {
        let (_d, path) = tmp();
        let s = Store::open(&path, &StoreOptions::default().map_size(asked)).unwrap();
        assert_eq!(s.map_size(), got, "asked {asked}");
    }
}

/// Reopened with a smaller `map_size`, a store's map is at least what the
/// data in its file takes, not the map size it was last used with (LMDB
/// keeps the size asked for if the data fits; the docs said "at least the
/// size recorded in the file", which it is not).
#[test]
fn a_reopened_store_maps_at_least_its_data() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default().map_size(16 << 20)).unwrap();
    let text = "x".repeat(100_000);
    for i in 0..40 {
        let mut e = roving::Encoder::new();
        e.str(&format!("{i}{text}")).unwrap();
        s.put(&format!("k{i}"), e.finish().unwrap()).unwrap();
    }
    s.flush().unwrap();
    drop(s);
    let file = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(file > 4_000_000, "{file}");
    let mut s = Store::open(&path, &StoreOptions::default().map_size(1 << 20)).unwrap();
    assert!(s.map_size() >= 4_000_000, "{}", s.map_size());
    assert!(s.map_size() < 16 << 20, "{}", s.map_size());
    assert_eq!(s.verify().unwrap(), 40);
    // And it grows again by itself.
    for i in 40..80 {
        let mut e = roving::Encoder::new();
        e.str(&format!("{i}{text}")).unwrap();
        s.put(&format!("k{i}"), e.finish().unwrap()).unwrap();
    }
    s.flush().unwrap();
    assert_eq!(s.len().unwrap(), 80);
}
