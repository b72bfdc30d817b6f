//! Keys as documented: 1 to 511 bytes of UTF-8, sorted by their bytes
//! (so by code point), iteration resumed after a key, and `delete` of a
//! key that cannot exist.

mod common;

use std::ops::Bound;

use roving_store::{Store, StoreErrorKind, StoreOptions};

use common::{doc_of, tmp};

/// Keys are 1 to 511 bytes of UTF-8 (`max_key_len`), counted in bytes,
/// sorted by their bytes (so by code point); `delete` of a key that
/// cannot exist says it was not there.
#[test]
fn keys_are_as_documented() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(s.max_key_len(), 511);
    // 255 two-byte characters and one byte: 511 bytes.
    let longest = format!("{}x", "é".repeat(255));
    assert_eq!(longest.len(), 511);
    s.put(&longest, doc_of(0)).unwrap();
    let e = s.put(&format!("{longest}x"), doc_of(0)).unwrap_err();
    assert_eq!(e.kind(), StoreErrorKind::InvalidKey);
    for (i, k) in ["z", "é", "B", "a", "\u{10000}", "\u{ffff}", "aa"]
        .iter()
        .enumerate()
    {
        s.put(k, doc_of(i as u64 + 1)).unwrap();
    }
    s.flush().unwrap();
    let keys: Vec<String> = s.iter().map(|r| r.unwrap().0.to_string()).collect();
    let mut want = vec!["z", "é", "B", "a", "\u{10000}", "\u{ffff}", "aa", &longest];
    want.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    assert_eq!(keys, want);
    // Byte order is code point order.
    let mut by_chars = want.clone();
    by_chars.sort_by(|a, b| a.chars().cmp(b.chars()));
    assert_eq!(by_chars, want);
    // Resuming after a key.
    let after: Vec<String> = s
        .iter_from(Bound::Excluded("a"))
        .map(|r| r.unwrap().0.to_string())
        .collect();
    assert_eq!(
        after,
        want[want.iter().position(|k| *k == "a").unwrap() + 1..]
    );
    assert!(!s.delete("").unwrap());
    assert!(!s.delete(&"k".repeat(512)).unwrap());
    assert!(s.delete("z").unwrap());
    assert!(!s.delete("z").unwrap());
}
