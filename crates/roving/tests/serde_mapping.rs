//! The serde mapping as `docs/FORMAT.md` section 18 states it: the error
//! example, human-readable formats, timestamps, big integers, enums and
//! unit types, shapes of structs, what `deserialize_any` is handed, and
//! which map keys are refused.

use roving::json::{from_json, to_json};
use roving::{Document, Encoder, ErrorKind, Timestamp, Value};

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
    let doc = from_json(br#"{"a":[{"x":1},{"x":"s"}]}"#).unwrap();
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
            "1970-01-01T00:00:00",
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
