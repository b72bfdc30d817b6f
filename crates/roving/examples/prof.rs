//! Runs one operation in a loop for profiling: `prof validate|lookup|handle|convert|tojson [N]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map(String::as_str).unwrap_or("validate");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let json = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/1000people.json"
    ))
    .unwrap();
    let doc = roving::json::from_json(&json).unwrap();
    let d = roving::Document::open(&doc).unwrap();
    let h = roving::KeyHandle::new("name");
    for _ in 0..n {
        match op {
            "validate" => roving::validate(std::hint::black_box(&doc)).unwrap(),
            "lookup" => {
                std::hint::black_box(
                    std::hint::black_box(&d)
                        .root()
                        .index(123)
                        .unwrap()
                        .get("name"),
                );
            }
            "handle" => {
                let m = std::hint::black_box(&d)
                    .root()
                    .index(123)
                    .unwrap()
                    .as_map()
                    .unwrap();
                std::hint::black_box(m.get_with(&h));
            }
            "convert" => {
                std::hint::black_box(roving::json::from_json(&json).unwrap());
            }
            "tojson" => {
                std::hint::black_box(roving::json::to_json(d.root()).unwrap());
            }
            _ => panic!("unknown op"),
        }
    }
}
