//! Profiling helper: validating one small record repeatedly.
fn main() {
    let mut e = roving::Encoder::new();
    e.begin_map().unwrap();
    for (k, v) in [
        ("identifier", "item 1"),
        ("hash", "someHash120djas!hf0410AjsifhsFjsd"),
        ("optionalString", "optional string!"),
    ] {
        e.key(k).unwrap();
        e.str(v).unwrap();
    }
    e.key("views").unwrap();
    e.u64(5).unwrap();
    e.key("data").unwrap();
    e.bytes(b"some dummy data").unwrap();
    e.key("displayInRect").unwrap();
    e.begin_array().unwrap();
    for _ in 0..4 {
        e.f64(1.0).unwrap();
    }
    e.end_array().unwrap();
    e.end_map().unwrap();
    let doc = e.finish().unwrap();
    let n = 2_000_000;
    let t = std::time::Instant::now();
    for _ in 0..n {
        roving::validate(std::hint::black_box(&doc)).unwrap();
    }
    println!("{} B: {:?} per validate", doc.len(), t.elapsed() / n);
}
