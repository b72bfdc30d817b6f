//! Shared dictionaries (FORMAT.md section 23): arbitrary bytes as a
//! dictionary, as a delta and as a document bound to a dictionary (the
//! input itself after a binding of a fixed dictionary, and the input as a
//! whole document against the dictionary read from its first part).
//! Must never crash; what opens must convert to JSON, a dictionary read
//! from bytes must write the same bytes back, and opening a bound document
//! (whose scan starts after the dictionary's base, checked once) must give
//! the verdict of validating its whole plain document.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::{Dictionary, Document};

fn fixed() -> Dictionary {
    let mut d = Dictionary::new();
    d.add_shape(&["Id", "Name", "Address", "Scores"]).unwrap();
    d.add_string("Simple").unwrap();
    d.add_shape(&["", "k"]).unwrap();
    let wide: Vec<String> = (0..10).map(|i| format!("f{i}")).collect();
    d.add_shape(&wide).unwrap();
    d
}

fn read(doc: &[u8], d: &Dictionary) {
    let mut scratch = Vec::new();
    let opened = Document::open_with(doc, d, &mut scratch);
    let mut whole = Vec::new();
    let whole = roving::dictionary::resolve(doc, d, &mut whole).and_then(roving::validate);
    assert_eq!(
        opened.as_ref().map(drop).map_err(|e| e.kind().clone()),
        whole.map_err(|e| e.kind().clone()),
        "open_with and the whole plain document disagree"
    );
    if let Ok(x) = opened {
        let _ = roving::json::to_json(x.root());
    }
    let mut scratch = Vec::new();
    if let Ok(x) = Document::open_lazy_with(doc, d, &mut scratch) {
        let _ = x.root().try_get("Name");
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = Dictionary::from_bytes(data) {
        assert_eq!(Dictionary::from_bytes(&d.to_bytes()).unwrap(), d);
    }
    let d = fixed();
    let mut grown = d.clone();
    if grown.extend_from_delta(data).is_err() {
        assert_eq!(grown, d, "a refused delta changes nothing");
    }
    let mut doc = b"RV\x02".to_vec();
    roving::layout::write_binding(&mut doc, d.len() as u64, d.id());
    doc.extend_from_slice(data);
    read(&doc, &d);
    read(data, &d);
    if let Some(split) = data.first().map(|&b| b as usize % data.len().max(1)) {
        if let Ok(d2) = Dictionary::from_bytes(&data[1..split.max(1)]) {
            read(&data[split.max(1)..], &d2);
        }
    }
});
