//! Opens a store file read-only, reads every record and verifies it:
//! `open_check FILE [--verify-pages]` (for damaged-file reports).
use roving_store::{Store, StoreOptions};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: open_check FILE");
        std::process::exit(2);
    };
    let walk = std::env::args().any(|a| a == "--verify-pages");
    let t = std::time::Instant::now();
    match Store::open(
        &path,
        &StoreOptions::new().readonly(true).verify_pages(walk),
    ) {
        Ok(store) => {
            println!("opened in {:?}: len {:?}", t.elapsed(), store.len());
            println!("verify: {:?}", store.verify());
            println!(
                "get: {:?}",
                store.get("item 1").map(|d| d.map(|d| d.as_bytes().len()))
            );
        }
        Err(e) => println!("error: {e} ({:?})", e.kind()),
    }
}
