//! `Debug` of documents, values, iterators, vectors and encoders says
//! where a value is (or how far a document is), not the document's bytes:
//! a value of a megabyte document prints in a line.

mod common;

use roving::{Document, Encoder};

#[test]
fn debug_output_stays_short_for_a_large_document() {
    let json = std::fs::read(common::repo_data("1000people.json")).unwrap();
    let bytes = roving::json::from_json(&json).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let root = doc.root();
    let person = root.index(5).unwrap();
    let map = person.as_map().unwrap();
    let array = root.as_array().unwrap();
    let lazy = Document::open_lazy(&bytes).unwrap();
    let printed = [
        format!("{doc:?}"),
        format!("{lazy:?}"),
        format!("{root:?}"),
        format!("{person:?}"),
        format!("{map:?}"),
        format!("{:?}", map.iter()),
        format!("{:?}", map.slots()),
        format!("{:?}", array.iter()),
        format!("{:?}", array.slots()),
    ];
    for p in &printed {
        assert!(p.len() < 120, "{} chars: {p}", p.len());
    }
    assert!(
        printed[0].contains(&format!("len: {}", bytes.len())),
        "{}",
        printed[0]
    );
    assert!(
        printed[3].starts_with("Map(Map { offset: "),
        "{}",
        printed[3]
    );

    let mut e = Encoder::new();
    e.vector(&vec![1.5f64; 100_000]).unwrap();
    let bytes = e.finish().unwrap();
    let v = Document::open(&bytes).unwrap().root();
    let p = format!("{v:?}");
    assert!(p.len() < 120 && p.contains("len: 100000"), "{p}");
}

#[test]
fn debug_of_an_encoder_stays_short_for_a_large_document() {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for i in 0..10_000 {
        e.begin_map().unwrap();
        e.key(&format!("k{}", i % 50)).unwrap();
        e.str(&format!("value {i}")).unwrap();
        e.end_map().unwrap();
    }
    let p = format!("{e:?}");
    assert!(p.len() < 120, "{} chars: {p}", p.len());
    assert!(
        p.contains(&format!("len: {}", e.len())) && p.contains("depth: 1"),
        "{p}"
    );
}
