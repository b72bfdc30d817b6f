//! Quick timings (min of N) of the core operations on a JSON file, for tuning.
//! The real benchmarks are in crates/roving-bench (criterion, with peers).
use std::time::Instant;

fn best<F: FnMut()>(n: usize, mut f: F) -> f64 {
    let mut b = f64::MAX;
    for _ in 0..n {
        let t = Instant::now();
        f();
        b = b.min(t.elapsed().as_secs_f64());
    }
    b
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/1000people.json").into());
    let json = std::fs::read(&path).unwrap();
    let doc = roving::json::from_json(&json).unwrap();
    println!(
        "size {} ({:.3} of input)",
        doc.len(),
        doc.len() as f64 / json.len() as f64
    );
    let t = best(30, || {
        std::hint::black_box(roving::json::from_json(&json).unwrap());
    });
    println!("json->roving {:.3} ms", t * 1e3);
    let t = best(30, || {
        std::hint::black_box(serde_json::from_slice::<serde_json::Value>(&json).unwrap());
    });
    println!("serde_json Value {:.3} ms", t * 1e3);
    let t = best(50, || roving::validate(std::hint::black_box(&doc)).unwrap());
    println!("validate {:.1} us", t * 1e6);
    let d = roving::Document::open(&doc).unwrap();
    let n = 1_000_000;
    let t = best(5, || {
        for _ in 0..n {
            let r = std::hint::black_box(&d).root();
            std::hint::black_box(
                r.index(std::hint::black_box(123))
                    .unwrap()
                    .get(std::hint::black_box("name")),
            );
        }
    });
    println!("[123].name {:.1} ns", t * 1e9 / n as f64);
    let h = roving::KeyHandle::new("name");
    let t = best(5, || {
        for _ in 0..n {
            let r = std::hint::black_box(&d).root();
            std::hint::black_box(r.index(123).unwrap().as_map().unwrap().get_with(&h));
        }
    });
    println!("[123].name handle {:.1} ns", t * 1e9 / n as f64);
    let t = best(5, || {
        for _ in 0..n {
            // SAFETY: `doc` was validated above.
            let d = unsafe { roving::Document::open_trusted(std::hint::black_box(&doc)) }.unwrap();
            std::hint::black_box(d.root());
        }
    });
    println!("trusted open + root {:.1} ns", t * 1e9 / n as f64);
    let t = best(20, || {
        std::hint::black_box(roving::json::to_json(d.root()).unwrap());
    });
    println!("roving->json {:.3} ms", t * 1e3);
}
