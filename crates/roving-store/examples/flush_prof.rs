//! Profiling helper: repeated 10k-item flushes. `cargo run --release -p roving-store --example flush_prof`
use roving_store::{Store, StoreOptions};
fn main() {
    let dir = std::env::temp_dir().join("flush_prof");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut e = roving::Encoder::new();
    e.str(&"x".repeat(200)).unwrap();
    let doc = e.finish().unwrap();
    let mut total = std::time::Duration::ZERO;
    for round in 0..20 {
        let p = dir.join(format!("r{round}.rvs"));
        let mut s = Store::open(&p, &StoreOptions::default().sync(false)).unwrap();
        for i in 0..10_000 {
            s.put(&format!("item {i}"), doc.clone()).unwrap();
        }
        let t = std::time::Instant::now();
        s.flush().unwrap();
        total += t.elapsed();
    }
    println!("mean flush {:?}", total / 20);
}
