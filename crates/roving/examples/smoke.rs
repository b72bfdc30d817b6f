//! Smoke run: JSON -> roving -> JSON on a file, with rough timings.
fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/1000people.json").into());
    let json = std::fs::read(&path).unwrap();
    let t = std::time::Instant::now();
    let doc = roving::json::from_json(&json).unwrap();
    println!("convert {:?}, size {}", t.elapsed(), doc.len());
    let t = std::time::Instant::now();
    roving::validate(&doc).unwrap();
    println!("validate {:?}", t.elapsed());
    let d = roving::Document::open(&doc).unwrap();
    println!("{:?}", d.get_path("[123].name").unwrap().unwrap());
    let out = roving::json::to_json(d.root()).unwrap();
    let a: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let b: serde_json::Value = serde_json::from_str(&out).unwrap();
    println!("json roundtrip equal: {}", a == b);
}
