//! Quick figures for the store: `cargo run --release -p roving-store --example store_perf [DIR]`.

use std::time::Instant;

use roving::{Encoder, Timestamp};
use roving_store::{Store, StoreOptions};

fn bbitem(i: u64) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    e.key("identifier").unwrap();
    e.str(&format!("item {i}")).unwrap();
    e.key("createdAt").unwrap();
    e.timestamp(Timestamp::new(1_700_000_000, 0, None).unwrap())
        .unwrap();
    e.key("hash").unwrap();
    e.str("someHash120djas!hf0410AjsifhsFjsd").unwrap();
    e.key("data").unwrap();
    e.bytes(b"some dummy data").unwrap();
    if i % 2 == 0 {
        e.key("optionalString").unwrap();
        e.str("optional string!").unwrap();
    }
    e.key("views").unwrap();
    e.u64(i).unwrap();
    e.key("displayInRect").unwrap();
    e.begin_array().unwrap();
    for _ in 0..4 {
        e.f64(i as f64).unwrap();
    }
    e.end_array().unwrap();
    e.end_map().unwrap();
    e.finish().unwrap()
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let opts = StoreOptions::default();

    // 10,000 items: add all + flush, reload + read all.
    let p = dir.join("perf10k.rvs");
    let _ = std::fs::remove_file(&p);
    let _ = std::fs::remove_file(dir.join("perf10k.rvs-lock"));
    let docs: Vec<Vec<u8>> = (0..10_000).map(bbitem).collect();
    let mut s = Store::open(&p, &opts).unwrap();
    let t = Instant::now();
    for (i, d) in docs.iter().enumerate() {
        s.put(&format!("item {i}"), d.clone()).unwrap();
    }
    let t_put = t.elapsed();
    let t = Instant::now();
    s.flush().unwrap();
    let t_flush = t.elapsed();
    let t = Instant::now();
    s.reload().unwrap();
    let mut n = 0;
    for r in s.iter() {
        let (_, d) = r.unwrap();
        n += d.root().get("views").unwrap().as_u64().unwrap();
    }
    let t_read = t.elapsed();
    println!(
        "10k: put {:?} flush {:?} reload+iterate(validated) {:?} (sum {n})",
        t_put, t_flush, t_read
    );
    let t = Instant::now();
    for d in &docs {
        roving::validate(d).unwrap();
    }
    println!(
        "validate one BBItem ({} B): {:?}",
        docs[1].len(),
        t.elapsed() / docs.len() as u32
    );

    // change one + flush
    let t = Instant::now();
    s.put("item 5", docs[6].clone()).unwrap();
    s.flush().unwrap();
    println!("change one + flush: {:?}", t.elapsed());
    drop(s);

    // flush cost with and without sync
    for sync in [true, false] {
        let p = dir.join(format!("perf10k-{sync}.rvs"));
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_file(dir.join(format!("perf10k-{sync}.rvs-lock")));
        let mut s = Store::open(&p, &StoreOptions::default().sync(sync)).unwrap();
        for (i, d) in docs.iter().enumerate() {
            s.put(&format!("item {i}"), d.clone()).unwrap();
        }
        let t = Instant::now();
        s.flush().unwrap();
        println!("10k flush sync={sync}: {:?}", t.elapsed());
    }

    // 1,000,000 items.
    let p = dir.join("perf1m.rvs");
    if !p.exists() {
        let mut s = Store::open(&p, &opts).unwrap();
        let t = Instant::now();
        for i in 0..1_000_000u64 {
            s.put(&format!("item {i}"), bbitem(i)).unwrap();
        }
        s.flush().unwrap();
        println!("1M: build {:?}", t.elapsed());
    }
    let t = Instant::now();
    let s = Store::open(&p, &opts).unwrap();
    println!("1M: open {:?} len {}", t.elapsed(), s.len().unwrap());
    let mut x = 0x12345u64;
    let keys: Vec<String> = (0..100_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("item {}", x % 1_000_000)
        })
        .collect();
    let mut sum = 0;
    for k in &keys {
        sum += s.get(k).unwrap().unwrap().as_bytes().len();
    }
    let t = Instant::now();
    for k in &keys {
        sum += s.get(k).unwrap().unwrap().as_bytes().len();
    }
    println!(
        "1M: random get (validated, warm) {:?} each ({sum})",
        t.elapsed() / keys.len() as u32
    );
    let snap = s.snapshot().unwrap();
    let t = Instant::now();
    for k in &keys {
        sum += snap.get_bytes(k).unwrap().unwrap().len();
    }
    println!(
        "1M: random get_bytes (no validation) {:?} each ({sum})",
        t.elapsed() / keys.len() as u32
    );
}
