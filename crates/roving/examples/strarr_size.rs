fn main() {
    let p = std::env::args().nth(1).unwrap();
    let j = std::fs::read(p).unwrap();
    let b = roving::json::from_json(&j).unwrap();
    let doc = roving::Document::open(&b).unwrap();
    let n = roving::walk::records(&doc)
        .unwrap()
        .filter(|r| r.as_ref().unwrap().kind() == roving::walk::Kind::StrArray)
        .count();
    println!("{} bytes, version {}, {} string arrays", b.len(), b[2], n);
}
