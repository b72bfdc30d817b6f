//! JSON output options: how extension values are written, and indents.

use roving::json::{write_json, JsonOptions};
use roving::{Document, Encoder};

#[test]
fn ext_text_writes_chosen_extensions_as_strings() {
    fn hex_of_seven(type_id: u64, data: &[u8]) -> Option<String> {
        (type_id == 7).then(|| data.iter().map(|b| format!("{b:02x}")).collect())
    }
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.ext(7, b"\x01\xab\"").unwrap();
    e.ext(8, b"\x01").unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    let root = Document::open(&bytes).unwrap().root();

    let mut out = Vec::new();
    let opts = JsonOptions {
        ext_text: Some(hex_of_seven),
        ..JsonOptions::default()
    };
    write_json(root, &opts, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"["01ab22",{"$ext":8,"$base64":"AQ=="}]"#
    );
    // Without it, every extension is the default object; text is escaped.
    assert_eq!(
        roving::json::to_json(root).unwrap(),
        r#"[{"$ext":7,"$base64":"Aasi"},{"$ext":8,"$base64":"AQ=="}]"#
    );
    fn quote(_: u64, _: &[u8]) -> Option<String> {
        Some("a\"b\n".into())
    }
    let mut out = Vec::new();
    let opts = JsonOptions {
        ext_text: Some(quote),
        indent: Some(1),
        ..JsonOptions::default()
    };
    write_json(root, &opts, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "[\n \"a\\\"b\\n\",\n \"a\\\"b\\n\"\n]"
    );
}

#[test]
fn an_indent_too_large_for_memory_is_an_error() {
    let bytes = roving::json::from_json(br#"{"a":[1,[2]],"v":[]}"#).unwrap();
    let root = Document::open(&bytes).unwrap().root();
    assert_eq!(
        roving::json::to_json_pretty(root, 1).unwrap(),
        "{\n \"a\": [\n  1,\n  [\n   2\n  ]\n ],\n \"v\": []\n}"
    );
    // (A terabyte of spaces, or more than an address space holds.)
    for indent in [1usize << 40, usize::MAX / 2, usize::MAX] {
        let err = roving::json::to_json_pretty(root, indent).unwrap_err();
        assert_eq!(*err.kind(), roving::ErrorKind::Unsupported, "{err}");
    }
}
