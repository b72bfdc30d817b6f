//! decode -> encode -> decode is stable: re-encoding a valid document's
//! value gives a document with an equal value, and encoding is deterministic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::{Document, Encoder};

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::open(data) else {
        return;
    };
    let mut e = Encoder::new();
    if e.write_value(doc.root()).is_err() {
        return; // depth limit
    }
    let once = e.finish().expect("finish");
    let again = Document::open(&once).expect("encoder output validates");
    assert!(again.root() == doc.root(), "value changed by re-encoding");
    let mut e = Encoder::new();
    e.write_value(again.root()).expect("re-encode");
    assert_eq!(
        e.finish().expect("finish"),
        once,
        "encoding is not deterministic"
    );
});
