//! A store named by a bare file name (no directory part), relative to the
//! current directory. Its own test binary: it changes the current directory
//! of the process, which would race with tests in other threads.

use roving_store::{Store, StoreOptions};

fn doc_of(n: i64) -> Vec<u8> {
    let mut enc = roving::Encoder::new();
    enc.i64(n).unwrap();
    enc.finish().unwrap()
}

#[test]
fn a_bare_file_name_is_created_in_the_current_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    let mut s = Store::open("items.rvs", &StoreOptions::default()).unwrap();
    s.put("a", doc_of(1)).unwrap();
    s.flush().unwrap();
    assert_eq!(s.path(), std::path::Path::new("items.rvs"));
    drop(s);
    assert!(dir.path().join("items.rvs").is_file());
    assert!(dir.path().join("items.rvs-lock").is_file());
    let s = Store::open("items.rvs", &StoreOptions::default().readonly(true)).unwrap();
    let got = s.get("a").unwrap().and_then(|d| d.root().as_i64());
    assert_eq!(got, Some(1));
}
