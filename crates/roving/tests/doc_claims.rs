//! What the documentation states as fact, checked: the defaults and
//! limits of `docs/FORMAT.md` section 15.2 and of the crate docs, the
//! JSON mapping of section 17 and the serde mapping of section 18, where
//! no other test pins the claim as stated.

use roving::json::{from_json, to_json, to_json_pretty, JsonOptions};
use roving::{Document, Encoder, ErrorKind, Limits, Timestamp, Value};

/// A document of `n` arrays nested inside one another around `0`.
fn nested_arrays(n: usize) -> Vec<u8> {
    let mut e = Encoder::new();
    e.set_max_depth(n);
    for _ in 0..n {
        e.begin_array().unwrap();
    }
    e.i64(0).unwrap();
    for _ in 0..n {
        e.end_array().unwrap();
    }
    e.finish().unwrap()
}

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

// ---- section 15.2 and `Limits` --------------------------------------------

/// `Limits::for_len`: depth 10,000 and `max(16 * len, 10,000,000)` values;
/// `Limits::none()` has no limits; `BYTES_PER_VALUE` is 16;
/// `JsonOptions::default()` has `Limits::for_len(0)`.
#[test]
fn default_limits_are_as_documented() {
    assert_eq!(roving::BYTES_PER_VALUE, 16);
    let small = Limits::for_len(100);
    assert_eq!((small.max_depth, small.max_values), (10_000, 10_000_000));
    let large = Limits::for_len(1_000_000);
    assert_eq!((large.max_depth, large.max_values), (10_000, 16_000_000));
    assert_eq!(Limits::for_len(usize::MAX).max_values, u64::MAX);
    assert_eq!(
        (Limits::none().max_depth, Limits::none().max_values),
        (usize::MAX, u64::MAX)
    );
    let opts = JsonOptions::default();
    assert_eq!(opts.limits, Limits::for_len(0));
    assert_eq!(opts.indent, None);
    assert!(opts.ext_text.is_none());
    assert_eq!(roving::encode::DEFAULT_MAX_DEPTH, 100_000);
}

/// `Encoder::set_max_depth(n)`: `n` containers nest, the next
/// `begin_array`/`begin_map` fails with `DepthLimit`.
#[test]
fn the_encoder_depth_limit_counts_open_containers() {
    let mut e = Encoder::new();
    e.set_max_depth(3);
    for _ in 0..3 {
        e.begin_array().unwrap();
    }
    assert_eq!(e.depth(), 3);
    assert_eq!(e.begin_map().unwrap_err().kind(), &ErrorKind::DepthLimit);
    assert_eq!(e.begin_array().unwrap_err().kind(), &ErrorKind::DepthLimit);
}

/// `to_json` takes `Limits::for_len`: 10,000 levels of containers are
/// written, 10,001 are a `DepthLimit` error.
#[test]
fn to_json_writes_ten_thousand_levels() {
    let ok = nested_arrays(10_000);
    let text = to_json(Document::open(&ok).unwrap().root()).unwrap();
    assert_eq!(text.len(), 2 * 10_000 + 1);
    let deep = nested_arrays(10_001);
    let doc = Document::open(&deep).unwrap();
    assert_eq!(
        to_json(doc.root()).unwrap_err().kind(),
        &ErrorKind::DepthLimit
    );
    let e = to_json_pretty(doc.root(), 1).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
}

/// `from_slice` and `from_value` read 256 levels, not 257 (`DepthLimit`),
/// whatever the document's size.
#[test]
fn serde_decoding_reads_256_levels() {
    let ok = nested_arrays(256);
    let v: serde_json::Value = roving::from_slice(&ok).unwrap();
    assert!(v.is_array());
    let v: serde_json::Value = roving::from_value(Document::open(&ok).unwrap().root()).unwrap();
    assert!(v.is_array());
    let deep = nested_arrays(257);
    let e = roving::from_slice::<serde_json::Value>(&deep).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
    let e =
        roving::from_value::<serde_json::Value>(Document::open(&deep).unwrap().root()).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::DepthLimit);
}

// ---- section 16.3 - 16.5 ----------------------------------------------------

/// The header and trailer errors of `Document::open` (section 16.1 rules 1
/// and 2, as the README and the error kinds describe them).
#[test]
fn short_and_foreign_inputs_are_told_apart() {
    let kind = |b: &[u8]| Document::open(b).unwrap_err().kind().clone();
    assert_eq!(kind(b""), ErrorKind::Truncated);
    assert_eq!(kind(b"R"), ErrorKind::Truncated);
    assert_eq!(kind(b"RV"), ErrorKind::Truncated);
    assert_eq!(kind(b"X"), ErrorKind::BadMagic);
    assert_eq!(kind(b"{}"), ErrorKind::BadMagic);
    assert_eq!(
        kind(b"RV\x02\x1c\x03\x1c"),
        ErrorKind::UnsupportedVersion(2)
    );
    assert_eq!(kind(b"RV\x01"), ErrorKind::BadTrailer);
    let lazy = |b: &[u8]| Document::open_lazy(b).unwrap_err().kind().clone();
    let trusted = |b: &[u8]| {
        // SAFETY: the inputs end before any record: `open_trusted` checks
        // the header and the trailer, and fails on them.
        unsafe { Document::open_trusted(b) }
            .unwrap_err()
            .kind()
            .clone()
    };
    for open in [lazy, trusted] {
        assert_eq!(open(b"RV"), ErrorKind::Truncated);
        assert_eq!(open(b"RV\x01"), ErrorKind::BadTrailer);
        assert_eq!(open(b"XV\x01\x1c\x03\x1c"), ErrorKind::BadMagic);
    }
}

/// A lazily opened document whose bytes do not validate: its containers
/// are unequal to everything, themselves included (`PartialEq for Value`),
/// and whole-value operations report the validation error (16.5).
#[test]
fn an_invalid_lazy_document_is_unequal_to_everything() {
    // A one-byte short string record that is not UTF-8 (at 3), an array
    // of one slot referring to it (at 5, relative distance 2: `2 << 2`),
    // the root record referring to the array (at 8, distance 3: `3 << 2`).
    let b = [
        b'R',
        b'V',
        1,
        0x81,
        0xFF,
        0x10,
        1,
        2 << 2,
        0x1C,
        3 << 2,
        0x1C,
    ];
    assert_eq!(
        roving::validate(&b).unwrap_err().kind(),
        &ErrorKind::InvalidUtf8
    );
    let lazy = Document::open_lazy(&b).unwrap();
    let root = lazy.root();
    assert!(root.as_array().is_some(), "{root:?}");
    assert!(root != root);
    assert!(root.validated().is_err());
    assert!(to_json(root).is_err());
    assert!(roving::from_value::<serde_json::Value>(root).is_err());
    // The element reads as null; the `try_` accessor says why.
    assert!(root.index(0).unwrap().is_null());
    let e = root.try_index(0).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::InvalidUtf8);
}

/// Vectors are viewed in place when the buffer is 8-aligned (the format
/// aligns the data to the element size from the document start).
#[test]
fn vectors_are_viewed_in_place_in_an_aligned_buffer() {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.str("x").unwrap();
    e.vector(&[1.5f64, -2.0, 3.25]).unwrap();
    e.vector(&[7u16, 8]).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    // An 8-aligned copy.
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    let aligned: &mut [u8] = bytemuck_bytes(&mut words);
    aligned[..bytes.len()].copy_from_slice(&bytes);
    let doc = Document::open(&aligned[..bytes.len()]).unwrap();
    let root = doc.root();
    let f = root.index(1).unwrap().as_vector().unwrap();
    assert_eq!(f.as_slice::<f64>(), Some(&[1.5, -2.0, 3.25][..]));
    assert_eq!(f.as_slice::<f32>(), None);
    let u = root.index(2).unwrap().as_vector().unwrap();
    assert_eq!(u.as_slice::<u16>(), Some(&[7u16, 8][..]));
}

fn bytemuck_bytes(words: &mut [u64]) -> &mut [u8] {
    let len = std::mem::size_of_val(words);
    // SAFETY: u64 has no padding and u8 has alignment 1.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}

// ---- section 17.1: JSON to roving -------------------------------------------

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

// ---- section 17.2: roving to JSON -------------------------------------------

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

/// Timestamps: RFC 3339 in the recorded offset (`Z` without one), a
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
    assert_eq!(text(t0, 0, None), "2024-05-01T10:30:00Z");
    assert_eq!(text(t0, 0, Some(0)), "2024-05-01T10:30:00+00:00");
    assert_eq!(text(t0, 120_000, None), "2024-05-01T10:30:00.000120Z");
    assert_eq!(text(t0, 1, None), "2024-05-01T10:30:00.000000001Z");
    assert_eq!(text(t0, 0, Some(-5)), "2024-05-01T10:29:55-00:00:05");
    assert_eq!(
        text(253_402_300_800, 0, None),
        "+10000-01-01T00:00:00Z",
        "year 10000"
    );
    assert_eq!(
        text(-62_167_219_201, 0, None),
        "-0001-12-31T23:59:59Z",
        "year -1"
    );
    assert_eq!(
        text(-62_167_219_200, 0, None),
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

// ---- section 18: the serde mapping -----------------------------------------

/// The example of section 18, byte offset included.
#[test]
fn the_serde_error_example_is_exact() {
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Outer {
        a: Vec<Inner>,
    }
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        x: u8,
    }
    let doc = json_doc(r#"{"a":[{"x":1},{"x":"s"}]}"#);
    let e = roving::from_slice::<Outer>(&doc).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"invalid type: string "s", expected u8 at $.a[1].x (byte offset 13)"#
    );
}

/// The serializer and the deserializer are human-readable, as serde_json's.
#[test]
fn serde_is_human_readable() {
    struct Probe;
    impl serde::Serialize for Probe {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let readable = s.is_human_readable();
            s.serialize_bool(readable)
        }
    }
    impl<'de> serde::Deserialize<'de> for Probe {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Probe, D::Error> {
            assert!(d.is_human_readable());
            let _ = <bool as serde::Deserialize>::deserialize(d)?;
            Ok(Probe)
        }
    }
    let bytes = roving::to_vec(&Probe).unwrap();
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(doc.root().as_bool(), Some(true));
    roving::from_slice::<Probe>(&bytes).unwrap();
}

/// `Timestamp` is a timestamp record in roving and its RFC 3339 text in
/// other formats, and reads from either.
#[test]
fn timestamps_through_serde() {
    let t = Timestamp::new(1_700_000_000, 123_000_000, Some(3600)).unwrap();
    let bytes = roving::to_vec(&t).unwrap();
    assert_eq!(bytes[3], roving::format::TAG_TIMESTAMP_OFFSET);
    assert_eq!(
        Document::open(&bytes).unwrap().root().as_timestamp(),
        Some(t)
    );
    assert_eq!(roving::from_slice::<Timestamp>(&bytes).unwrap(), t);
    let json = serde_json::to_string(&t).unwrap();
    assert_eq!(json, "\"2023-11-14T23:13:20.123+01:00\"");
    assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), t);
    // From the text in a roving document too.
    let text = roving::to_vec(&t.to_rfc3339()).unwrap();
    assert_eq!(roving::from_slice::<Timestamp>(&text).unwrap(), t);
}

/// `i128`/`u128` beyond 64 bits are big integers; unit variants are
/// strings, newtype variants one-entry maps; `None`, `()` and unit
/// structs are null; a struct's values share one shape.
#[test]
fn serde_data_model_as_documented() {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    enum E {
        Unit,
        New(u8),
    }
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Unit;
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct P {
        x: u8,
        y: u8,
    }
    let big = (u64::MAX as i128) + 1;
    let bytes = roving::to_vec(&big).unwrap();
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(doc.root().as_bigint(), Some(num_bigint::BigInt::from(big)));
    assert!(matches!(doc.root(), Value::BigInt(_)));
    assert_eq!(roving::from_slice::<i128>(&bytes).unwrap(), big);
    // An integer reads into a float as the nearest one, big ones too.
    assert_eq!(roving::from_slice::<f64>(&bytes).unwrap(), 2f64.powi(64));

    let bytes = roving::to_vec(&(E::Unit, E::New(3), None::<u8>, (), Unit)).unwrap();
    let text = to_json(Document::open(&bytes).unwrap().root()).unwrap();
    assert_eq!(text, r#"["Unit",{"New":3},null,null,null]"#);

    let bytes = roving::to_vec(&[P { x: 1, y: 2 }, P { x: 3, y: 4 }]).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let a = doc.root().as_array().unwrap();
    let shape = |i: usize| a.get(i).unwrap().as_map().unwrap().shape_offset();
    assert_eq!(shape(0), shape(1));
    assert!(shape(0).is_some());

    // A sequence longer than the type reading it is an error, not truncated.
    let three = roving::to_vec(&[1u8, 2, 3]).unwrap();
    assert!(roving::from_slice::<(u8, u8)>(&three).is_err());
    assert!(roving::from_slice::<[u8; 2]>(&three).is_err());
    assert!(roving::from_slice::<P>(&three).is_err());
}

/// A type that takes any value (`serde_json::Value`) is handed a timestamp
/// as its RFC 3339 text, an extension value as the pair `[type id,
/// bytes]`, a big integer past 128 bits as its decimal text, a typed
/// vector as a sequence of its elements.
#[test]
fn serde_any_value_forms() {
    let t = Timestamp::new(0, 0, None).unwrap();
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.timestamp(t).unwrap();
    e.ext(9, b"ab").unwrap();
    e.bigint_le(true, &[1; 17]).unwrap();
    e.vector(&[1u16, 2]).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    let v = roving::from_slice::<Any>(&bytes).unwrap().0;
    let big = Document::open(&bytes).unwrap().root().index(2).unwrap();
    let big = big.as_bigint().unwrap().to_string();
    assert!(big.starts_with('-') && big.len() > 39, "{big}");
    assert_eq!(
        v,
        serde_json::json!([
            "1970-01-01T00:00:00Z",
            [9, {"bytes": [97, 98]}],
            big,
            [1, 2]
        ])
    );
}

/// What `deserialize_any` hands over, as JSON (bytes as `{"bytes": [...]}`).
struct Any(serde_json::Value);

impl<'de> serde::Deserialize<'de> for Any {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
        use serde_json::Value as J;
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Any;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("anything")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Any, E> {
                Ok(Any(J::from(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Any, E> {
                Ok(Any(J::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Any, E> {
                Ok(Any(J::from(v)))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Any, E> {
                Ok(Any(serde_json::json!({ "bytes": v })))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Any, A::Error> {
                let mut out = vec![];
                while let Some(Any(v)) = a.next_element()? {
                    out.push(v);
                }
                Ok(Any(J::Array(out)))
            }
        }
        d.deserialize_any(V)
    }
}

/// `Encoder::bigint_le` ignores high zero bytes and writes values that fit
/// 64 bits as 64-bit integers, so that each integer has one encoding.
#[test]
fn encoder_big_integers_have_one_encoding() {
    let root = |negative: bool, mag: &[u8]| {
        let mut e = Encoder::new();
        e.bigint_le(negative, mag).unwrap();
        e.finish().unwrap()
    };
    let same = |a: Vec<u8>, b: Vec<u8>| assert_eq!(a, b);
    let mut i = Encoder::new();
    i.i64(1).unwrap();
    same(
        root(false, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        i.finish().unwrap(),
    );
    let mut i = Encoder::new();
    i.i64(i64::MIN).unwrap();
    same(root(true, &(1u64 << 63).to_le_bytes()), i.finish().unwrap());
    let mut i = Encoder::new();
    i.u64(u64::MAX).unwrap();
    same(root(false, &[0xFF; 8]), i.finish().unwrap());
    let neg = root(true, &((1u64 << 63) + 1).to_le_bytes());
    assert!(matches!(
        Document::open(&neg).unwrap().root(),
        Value::BigInt(b) if b.negative && b.magnitude.len() == 8
    ));
    let mut i = Encoder::new();
    i.i64(0).unwrap();
    same(root(true, &[0, 0]), i.finish().unwrap());
}

/// Encoder calls documented to fail: a timestamp out of range, vector
/// bytes that are not whole elements (`Unsupported`); `is_empty` until a
/// value, even an inline one, or a container is written.
#[test]
fn encoder_refusals_and_emptiness() {
    let mut e = Encoder::new();
    assert!(e.is_empty());
    let bad = Timestamp {
        seconds: 0,
        nanos: 1_000_000_000,
        offset: None,
    };
    assert_eq!(
        e.timestamp(bad).unwrap_err().kind(),
        &ErrorKind::Unsupported
    );
    let bad = Timestamp {
        seconds: 0,
        nanos: 0,
        offset: Some(86_400),
    };
    assert_eq!(
        e.timestamp(bad).unwrap_err().kind(),
        &ErrorKind::Unsupported
    );
    let e2 = e.vector_raw(roving::ElemType::U16, &[1, 2, 3]).unwrap_err();
    assert_eq!(e2.kind(), &ErrorKind::Unsupported);
    assert!(e.is_empty());
    e.null().unwrap();
    assert!(!e.is_empty());
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    assert!(!e.is_empty());
    assert_eq!(e.end_array().unwrap_err().kind(), &ErrorKind::EncoderState);
    e.key("k").unwrap();
    assert_eq!(e.end_map().unwrap_err().kind(), &ErrorKind::EncoderState);
}

/// `Error` is boxed so that a `Result<T, Error>` is the size of `T` and a
/// word; a `Value` is a few (four) words.
#[test]
fn errors_and_values_are_small() {
    use std::mem::size_of;
    let word = size_of::<usize>();
    assert_eq!(size_of::<roving::Error>(), word);
    assert_eq!(size_of::<roving::Result<()>>(), word);
    assert!(size_of::<roving::Result<u64>>() <= size_of::<u64>() + word);
    assert!(
        size_of::<Value<'_>>() <= 4 * word,
        "{}",
        size_of::<Value<'_>>()
    );
}

/// A map key that has no text form is refused with `Unsupported`, and the
/// message names the keys that are allowed (it said "map keys must be
/// strings" although integers, floats, bools, chars and unit variants are
/// written as their text).
#[test]
fn map_key_errors_name_the_allowed_keys() {
    let tuple_keys: std::collections::BTreeMap<(u8, u8), u8> = [((1, 2), 3)].into();
    let unit_keys: std::collections::BTreeMap<(), u8> = [((), 3)].into();
    for e in [
        roving::to_vec(&tuple_keys).unwrap_err(),
        roving::to_vec(&unit_keys).unwrap_err(),
    ] {
        assert_eq!(e.kind(), &ErrorKind::Unsupported);
        let text = e.to_string();
        for word in [
            "strings",
            "integers",
            "floats",
            "bools",
            "chars",
            "unit variants",
        ] {
            assert!(text.contains(word), "{text}");
        }
    }
    let ok: std::collections::BTreeMap<i32, u8> = [(-1, 3)].into();
    let doc = roving::to_vec(&ok).unwrap();
    assert_eq!(
        to_json(Document::open(&doc).unwrap().root()).unwrap(),
        r#"{"-1":3}"#
    );
}

/// In a lazily opened document, a key that is not UTF-8 is absent to
/// lookups and `key_at`, reads as `""` when iterating, and `try_key_at`
/// reports it (FORMAT.md 16.5, `Document::open_lazy`).
#[test]
fn an_invalid_key_of_a_lazy_document() {
    // A one-byte key that is not UTF-8 (at 3), a shape of that key (at 5,
    // key slot at distance 2), a map of that shape (at 8, shape at
    // distance 3: `3 << 1`, value 1 inline: `1 << 2 | 1`), the root (at
    // 11, map at distance 3).
    let b = [
        b'R',
        b'V',
        1,
        0x81,
        0xFF,
        0x18,
        1,
        2 << 2,
        0x14,
        3 << 1,
        1 << 2 | 1,
        0x1C,
        3 << 2,
        0x1C,
    ];
    assert_eq!(
        roving::validate(&b).unwrap_err().kind(),
        &ErrorKind::InvalidUtf8
    );
    let doc = Document::open_lazy(&b).unwrap();
    let m = doc.root().as_map().unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m.key_at(0), None);
    assert_eq!(m.get("\u{fffd}"), None);
    let entries: Vec<(&str, Option<i64>)> = m.iter().map(|(k, v)| (k, v.as_i64())).collect();
    assert_eq!(entries, [("", Some(1))]);
    assert_eq!(m.try_key_at(0).unwrap_err().kind(), &ErrorKind::InvalidUtf8);
    assert_eq!(m.try_value_at(0).unwrap().and_then(|v| v.as_i64()), Some(1));
}

/// `to_json`, `to_json_pretty` and `from_value` take `Limits::for_len` of
/// the value's document, whatever the value: a document whose root is one
/// long vector (a scalar, which does not know its document) converts as
/// its 16 values per byte allow. It was held to `Limits::for_len(0)`, 10
/// million values: a 10 MB root vector of bytes was an `ExpansionLimit`.
#[test]
fn a_long_root_vector_converts() {
    let n = 10_000_001;
    let data = vec![7u8; n];
    let mut e = Encoder::new();
    e.vector(&data).unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    let text = to_json(doc.root()).unwrap();
    assert_eq!(text.len(), 2 * n + 1);
    let back: Vec<u8> = roving::from_value(doc.root()).unwrap();
    assert_eq!(back.len(), n);
    let back: Vec<u8> = roving::from_slice(&bytes).unwrap();
    assert_eq!(back.len(), n);
}
