//! Arbitrary text: JSON -> roving -> JSON -> roving gives the same document,
//! and anything serde_json accepts we accept (and vice versa, except depth).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ours = roving::json::from_json(data);
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    if let (Err(e), Ok(_)) = (&ours, &theirs) {
        // serde_json accepts numbers that overflow f64 to infinity; we reject them.
        assert!(
            e.message().is_some_and(|m| m.contains("range")),
            "serde_json accepts what we reject: {e}"
        );
    }
    let Ok(doc) = ours else { return };
    let d = roving::Document::open(&doc).expect("encoder output validates");
    let text = roving::json::to_json(d.root()).expect("to_json");
    let doc2 = roving::json::from_json(text.as_bytes()).expect("our JSON parses");
    let d2 = roving::Document::open(&doc2).expect("encoder output validates");
    // Values are equal (bytes may differ: a duplicate key's dropped value
    // was written before the map merged it), and the text is now stable.
    assert!(d.root() == d2.root(), "JSON round trip changed the value");
    assert_eq!(roving::json::to_json(d2.root()).expect("to_json"), text);
});
