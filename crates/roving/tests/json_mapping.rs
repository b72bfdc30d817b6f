//! JSON to roving and back as `docs/FORMAT.md` section 17 maps them:
//! numbers by range, strict RFC 8259 input, the text written for floats,
//! strings, bytes, extensions and timestamps, pretty output, and a program
//! converting JSON in and out.

use roving::json::{from_json, to_json, to_json_pretty};
use roving::{Document, Encoder, ErrorKind, Timestamp, Value};

fn json_doc(text: &str) -> Vec<u8> {
    from_json(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// JSON text of the root of the document made from JSON `text`.
fn json_round_trip(text: &str) -> String {
    let doc = json_doc(text);
    to_json(Document::open(&doc).unwrap().root()).unwrap()
}

/// JSON text of the root of a document written by `write`.
fn json_of(write: impl FnOnce(&mut Encoder)) -> String {
    let mut e = Encoder::new();
    write(&mut e);
    let doc = e.finish().unwrap();
    to_json(Document::open(&doc).unwrap().root()).unwrap()
}

/// Integers without fraction or exponent in -2^63 ..= 2^64 - 1 are 64-bit
/// integers, outside that range big integers; `-0` is the float -0.0.
#[test]
fn json_integers_map_by_range() {
    let root = |text: &str| {
        let doc = json_doc(text);
        let v = Document::open(&doc).unwrap().root();
        match v {
            Value::Int(i) => format!("int {i}"),
            Value::UInt(u) => format!("uint {u}"),
            Value::BigInt(b) => format!("big {}", b.to_decimal()),
            Value::Float(f) => format!("float {:x}", f.to_bits()),
            v => format!("{v:?}"),
        }
    };
    assert_eq!(root("-9223372036854775808"), "int -9223372036854775808");
    assert_eq!(root("-9223372036854775809"), "big -9223372036854775809");
    assert_eq!(root("18446744073709551615"), "uint 18446744073709551615");
    assert_eq!(root("18446744073709551616"), "big 18446744073709551616");
    assert_eq!(root("-0"), format!("float {:x}", (-0.0f64).to_bits()));
    assert_eq!(root("0"), "int 0");
    assert_eq!(root("-0.0"), format!("float {:x}", (-0.0f64).to_bits()));
    assert_eq!(root("1e2"), format!("float {:x}", 100.0f64.to_bits()));
}

/// A number whose magnitude rounds to infinity is an error; underflow
/// gives 0 or a subnormal.
#[test]
fn json_float_overflow_is_an_error_and_underflow_is_not() {
    for text in ["1e309", "-1e400", "1.8e308"] {
        let e = from_json(text.as_bytes()).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::JsonSyntax, "{text}");
    }
    let f = |text: &str| {
        let doc = json_doc(text);
        let v = Document::open(&doc).unwrap().root().as_f64().unwrap();
        v.to_bits()
    };
    assert_eq!(f("1e-400"), 0.0f64.to_bits());
    assert_eq!(f("-1e-400"), (-0.0f64).to_bits());
    assert_eq!(f("5e-324"), 5e-324f64.to_bits());
    assert_eq!(f("1.7976931348623157e308"), f64::MAX.to_bits());
}

/// `""`, `[]` and `{}` are the special constants 3, 4 and 5 (no record: the
/// document is the header and a root record of one slot).
#[test]
fn empty_json_values_are_constants() {
    for (text, special) in [("\"\"", 3u8), ("[]", 4), ("{}", 5)] {
        let doc = json_doc(text);
        assert_eq!(
            doc,
            [b'R', b'V', 1, 0x1C, (special << 2) | 3, 0x1C],
            "{text}"
        );
    }
}

/// Strict RFC 8259: the forms section 17.1 lists are refused.
#[test]
fn json_extensions_are_refused() {
    for text in [
        "\u{feff}[]",
        "[1,]",
        "{\"a\":1,}",
        "// c\n1",
        "/* c */ 1",
        "'a'",
        "NaN",
        "Infinity",
        "-Infinity",
        "01",
        "+1",
        "1 2",
        "\"\\ud800\"",
        "\"\\udc00\\ud800\"",
        "\"a\u{1}\"",
        "\"\\x41\"",
        "\u{c}1",
    ] {
        assert!(from_json(text.as_bytes()).is_err(), "{text:?} accepted");
    }
    assert!(from_json(&[b'"', 0xFF, b'"']).is_err());
    // Whitespace is space, tab, CR and LF, around the value too.
    assert_eq!(json_round_trip(" \t\r\n[ 1 ,\t2 ]\r\n "), "[1,2]");
    // A surrogate pair of escapes is one character.
    assert_eq!(json_round_trip("\"\\ud83d\\ude00\""), "\"😀\"");
}

/// `{"$base64": …}`, `{"$ext": …}` and RFC 3339 strings read back as a
/// map and a string, not as bytes, extensions or timestamps.
#[test]
fn json_never_makes_bytes_timestamps_or_extensions() {
    let doc = json_doc(
        r#"[{"$base64":"AAE="},{"$ext":1,"$base64":""},"2024-05-01T12:30:00Z",[1.5,2.5]]"#,
    );
    let doc = Document::open(&doc).unwrap();
    let kinds: Vec<&str> = doc
        .root()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.type_name())
        .collect();
    assert_eq!(kinds, ["map", "map", "str", "array"]);
}

/// Floats: the shortest text that reads back, always with a `.` or an
/// exponent; NaN and infinities are `null`.
#[test]
fn json_floats_as_documented() {
    for (f, text) in [
        (1.0, "1.0"),
        (0.1, "0.1"),
        (-0.0, "-0.0"),
        (1e16, "1e16"),
        (5e-324, "5e-324"),
        (100.0, "100.0"),
    ] {
        assert_eq!(json_of(|e| e.f64(f).unwrap()), text);
    }
    for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(json_of(|e| e.f64(f).unwrap()), "null");
    }
    // Textual float forms may change.
    assert_eq!(json_round_trip("1E2"), "100.0");
    // f32 vector elements are widened first.
    assert_eq!(
        json_of(|e| e.vector(&[0.1f32]).unwrap()),
        "[0.10000000149011612]"
    );
}

/// Strings: `"`, `\` and controls below U+0020 are escaped (`\n \r \t \b
/// \f`, else `\u00XX`); `/`, DEL and non-ASCII are written as they are.
#[test]
fn json_string_escapes_as_documented() {
    let s = "\"\\\n\r\t\u{8}\u{c}\u{1}\u{1f}/\u{7f}é😀";
    assert_eq!(
        json_of(|e| e.str(s).unwrap()),
        "\"\\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u001f/\u{7f}é😀\""
    );
}

/// Bytes and extensions: standard base64 with padding.
#[test]
fn json_bytes_and_extensions_as_documented() {
    assert_eq!(
        json_of(|e| e.bytes(&[0, 1, 2, 3]).unwrap()),
        r#"{"$base64":"AAECAw=="}"#
    );
    assert_eq!(
        json_of(|e| e.ext(7, b"\xff\xfe").unwrap()),
        r#"{"$ext":7,"$base64":"//4="}"#
    );
}

/// Timestamps: RFC 3339 in the recorded offset (`Z` for offset 0, none
/// without one), a
/// fraction of 0, 3, 6 or 9 digits; years outside 0000-9999 with a sign
/// and at least four digits; offsets that are not whole minutes as
/// `+HH:MM:SS`.
#[test]
fn json_timestamps_as_documented() {
    let text = |seconds: i64, nanos: u32, offset: Option<i32>| {
        let t = Timestamp::new(seconds, nanos, offset).unwrap();
        let json = json_of(|e| e.timestamp(t).unwrap());
        assert_eq!(json, format!("\"{}\"", t.to_rfc3339()));
        t.to_rfc3339()
    };
    // 2024-05-01T10:30:00Z
    let t0 = 1_714_559_400;
    assert_eq!(
        text(t0, 500_000_000, Some(7200)),
        "2024-05-01T12:30:00.500+02:00"
    );
    // No offset (record 0A, a naive datetime): no offset in the text, so
    // that no JSON reader takes it for UTC; offset 0 is UTC, `Z`.
    assert_eq!(text(t0, 0, None), "2024-05-01T10:30:00");
    assert_eq!(text(t0, 0, Some(0)), "2024-05-01T10:30:00Z");
    assert_eq!(text(t0, 120_000, None), "2024-05-01T10:30:00.000120");
    assert_eq!(text(t0, 1, None), "2024-05-01T10:30:00.000000001");
    assert_eq!(text(t0, 1, Some(0)), "2024-05-01T10:30:00.000000001Z");
    assert_eq!(text(t0, 0, Some(-5)), "2024-05-01T10:29:55-00:00:05");
    assert_eq!(
        text(253_402_300_800, 0, Some(0)),
        "+10000-01-01T00:00:00Z",
        "year 10000"
    );
    assert_eq!(
        text(253_402_300_800, 0, None),
        "+10000-01-01T00:00:00",
        "year 10000"
    );
    assert_eq!(
        text(-62_167_219_201, 0, None),
        "-0001-12-31T23:59:59",
        "year -1"
    );
    assert_eq!(
        text(-62_167_219_200, 0, Some(0)),
        "0000-01-01T00:00:00Z",
        "year 0"
    );
}

/// Pretty output: one element or entry per line, `n` spaces per level,
/// `": "` after keys, empty containers kept as `[]` and `{}`.
#[test]
fn pretty_json_as_documented() {
    let doc = json_doc(r#"{"a":[1,[]],"b":{},"c":{"d":null}}"#);
    let doc = Document::open(&doc).unwrap();
    assert_eq!(
        to_json_pretty(doc.root(), 3).unwrap(),
        "{\n   \"a\": [\n      1,\n      []\n   ],\n   \"b\": {},\n   \"c\": {\n      \"d\": null\n   }\n}"
    );
}

/// (4) JSON in and out.
#[test]
fn json_in_and_out() -> Result<(), roving::Error> {
    let text = br#"{"name":"Ada","n":[1,2.5,-0.0,12345678901234567890123],"ok":true,"none":null}"#;
    let bytes = roving::json::from_json(text)?;
    let doc = Document::open(&bytes)?;
    assert_eq!(roving::json::to_json(doc.root())?.as_bytes(), text);
    let n = doc.get_path("n")?.unwrap();
    assert!(matches!(n.index(3), Some(Value::BigInt(_))));
    assert_eq!(
        roving::json::to_json_pretty(doc.get_path("n")?.unwrap(), 1)?,
        "[\n 1,\n 2.5,\n -0.0,\n 12345678901234567890123\n]"
    );
    // Typed decoding of JSON-born documents, and into serde_json values.
    // (serde_json::Value has no integers past 64 bits: decode around them.)
    let any: serde_json::Value = roving::from_value(doc.root().get("name").unwrap())?;
    assert_eq!(any, "Ada");
    let ok: bool = roving::from_value(doc.get_path("ok")?.unwrap())?;
    assert!(ok);
    // Errors of JSON text carry a line and a column.
    let err = roving::json::from_json(b"{\n  \"a\": tru\n}").unwrap_err();
    assert_eq!(err.kind(), &roving::ErrorKind::JsonSyntax);
    assert_eq!(err.line_col(), Some((2, 8)));
    Ok(())
}
