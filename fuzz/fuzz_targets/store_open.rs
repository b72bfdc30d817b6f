//! A store file made of arbitrary bytes: opening it, reading every record
//! and verifying must give data or a StoreError, never a crash (with
//! `verify_pages`, the bounds-checked walk of the LMDB pages at open).
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving_store::{Store, StoreOptions};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("roving-fuzz-store-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("store.rvs");
    let _ = std::fs::remove_file(dir.join("store.rvs-lock"));
    if std::fs::write(&file, data).is_err() {
        return;
    }
    let opts = StoreOptions::new().readonly(true).verify_pages(true);
    if let Ok(store) = Store::open(&file, &opts) {
        if let Ok(snap) = store.snapshot() {
            let _ = snap.verify();
        }
        let _ = store.len();
        let _ = store.get("item 1");
    }
});
