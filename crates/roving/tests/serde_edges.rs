//! serde at the edges of the data model: sequences longer than the type
//! reading them, map keys of every scalar type, extension type ids past
//! `i64::MAX`, and binary32 NaN payloads.

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) {
    let bytes = roving::to_vec(v).unwrap();
    assert_eq!(&roving::from_slice::<T>(&bytes).unwrap(), v);
}

/// Decodes `json` as `T` through roving, and says whether serde_json
/// agrees on success or failure.
fn decode<T: DeserializeOwned + Debug>(json: &str) -> roving::Result<T> {
    let doc = roving::json::from_json(json.as_bytes()).unwrap();
    let got = roving::from_slice::<T>(&doc);
    let want = serde_json::from_str::<T>(json);
    assert_eq!(
        got.is_ok(),
        want.is_ok(),
        "{json}: roving {got:?}, serde_json {want:?}"
    );
    got
}

#[derive(Deserialize, Debug, PartialEq)]
struct Pair(i32, i32);

#[derive(Deserialize, Debug, PartialEq)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Deserialize, Debug, PartialEq)]
enum E {
    Tup(i32, i32),
}

/// Elements past those a type reads are an error, as in serde_json, not
/// silently dropped: tuples, arrays, tuple structs, structs read from
/// arrays, tuple variants. Exactly as many still decode.
#[test]
fn sequences_longer_than_the_type_are_refused() {
    let e = decode::<(i32, i32)>("[1,2,3]").unwrap_err();
    assert!(e.to_string().contains("invalid length 3"), "{e}");
    assert!(decode::<[i32; 2]>("[1,2,3]").is_err());
    assert!(decode::<Pair>("[1,2,3]").is_err());
    assert!(decode::<Point>("[1,2,3]").is_err());
    assert!(decode::<E>(r#"{"Tup":[1,2,3]}"#).is_err());
    // Nested: the error names where.
    let e = decode::<Vec<(i32, i32)>>("[[1,2],[3,4,5]]").unwrap_err();
    assert!(e.to_string().contains("$[1]"), "{e}");

    assert_eq!(decode::<(i32, i32)>("[1,2]").unwrap(), (1, 2));
    assert_eq!(decode::<Pair>("[1,2]").unwrap(), Pair(1, 2));
    assert_eq!(decode::<Point>("[1,2]").unwrap(), Point { x: 1, y: 2 });
    assert_eq!(decode::<E>(r#"{"Tup":[1,2]}"#).unwrap(), E::Tup(1, 2));
    // Too few is an error as before; sequences read whole are unchanged.
    assert!(decode::<(i32, i32)>("[1]").is_err());
    assert_eq!(decode::<Vec<i32>>("[1,2,3]").unwrap(), [1, 2, 3]);
    assert!(decode::<serde::de::IgnoredAny>("[1,2,3]").is_ok());
}

/// A typed vector read into a shorter tuple is refused the same way.
#[test]
fn vectors_longer_than_the_type_are_refused() {
    let mut e = roving::Encoder::new();
    e.vector(&[1u16, 2, 3]).unwrap();
    let bytes = e.finish().unwrap();
    assert!(roving::from_slice::<(u16, u16)>(&bytes).is_err());
    assert_eq!(
        roving::from_slice::<(u16, u16, u16)>(&bytes).unwrap(),
        (1, 2, 3)
    );
    assert_eq!(roving::from_slice::<Vec<u16>>(&bytes).unwrap(), [1, 2, 3]);
}

/// Map keys of every integer width (i128 and u128 included), bools,
/// chars and `Option`s round-trip; a key `to_vec` never writes (`+1`)
/// is not read as a number.
#[test]
fn map_keys_of_every_scalar_type_round_trip() {
    round_trip(&BTreeMap::from([(i128::MIN, 1), (-1, 2), (i128::MAX, 3)]));
    round_trip(&BTreeMap::from([(0u128, 1), (u128::MAX, 2)]));
    round_trip(&BTreeMap::from([(i64::MIN, 1), (i64::MAX, 2)]));
    round_trip(&BTreeMap::from([(u64::MAX, 1u8)]));
    round_trip(&BTreeMap::from([(Some(3u8), 1), (Some(4u8), 2)]));
    round_trip(&BTreeMap::from([(true, 1), (false, 2)]));
    round_trip(&BTreeMap::from([('x', 1), ('é', 2)]));

    let doc = roving::json::from_json(br#"{"+1":1}"#).unwrap();
    assert!(roving::from_slice::<BTreeMap<i32, i32>>(&doc).is_err());
    let doc = roving::json::from_json(br#"{"1":1,"-2":2}"#).unwrap();
    assert_eq!(
        roving::from_slice::<BTreeMap<i32, i32>>(&doc).unwrap(),
        BTreeMap::from([(1, 1), (-2, 2)])
    );
}

/// An extension's type id is read as the unsigned number it is, past
/// `i64::MAX` too.
#[test]
fn extension_type_ids_past_i64_max_stay_unsigned() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ext(u64, Payload);
    #[derive(Debug, PartialEq)]
    struct Payload(Vec<u8>);
    impl<'de> Deserialize<'de> for Payload {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Payload;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E>(self, v: &[u8]) -> Result<Payload, E> {
                    Ok(Payload(v.to_vec()))
                }
            }
            d.deserialize_bytes(V)
        }
    }
    for id in [0, 7, i64::MAX as u64, i64::MAX as u64 + 1, u64::MAX] {
        let mut e = roving::Encoder::new();
        e.begin_array().unwrap();
        e.ext(id, b"zz").unwrap();
        e.end_array().unwrap();
        let bytes = e.finish().unwrap();
        let got: Vec<Ext> = roving::from_slice(&bytes).unwrap();
        assert_eq!(got, [Ext(id, Payload(b"zz".to_vec()))]);
    }
}

/// binary32 values keep their bits through `to_vec` and `from_slice`,
/// signalling NaNs and payloads included, alone, in structs and in
/// sequences.
#[test]
fn f32_nan_payloads_round_trip_bit_exact() {
    #[derive(Serialize, Deserialize, Debug)]
    struct S {
        a: f32,
        v: Vec<f32>,
    }
    let values = [
        0x7F80_0001u32, // signalling NaN
        0xFF80_0001,
        0x7FA0_1234,
        0x7FC0_0000, // quiet NaN
        0xFFC0_0001,
        0x7F80_0000, // +inf
        0x8000_0000, // -0.0
        0x0000_0001, // smallest subnormal
        0x3F80_0000, // 1.0
    ];
    for bits in values {
        let f = f32::from_bits(bits);
        let back: f32 = roving::from_slice(&roving::to_vec(&f).unwrap()).unwrap();
        assert_eq!(back.to_bits(), bits, "{bits:#x}");
        let s = S {
            a: f,
            v: vec![f, 1.5, f],
        };
        let back: S = roving::from_slice(&roving::to_vec(&s).unwrap()).unwrap();
        assert_eq!(back.a.to_bits(), bits, "{bits:#x}");
        let got: Vec<u32> = back.v.iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, [bits, 1.5f32.to_bits(), bits], "{bits:#x}");
        // An f64 that is not a binary32 exactly still narrows as `as`
        // would (to the nearest binary32).
        let wide: f32 = roving::from_slice(&roving::to_vec(&0.1f64).unwrap()).unwrap();
        assert_eq!(wide, 0.1f32);
    }
}

/// `Timestamp` is a native timestamp record through `to_vec`, RFC 3339
/// text through serde_json, and reads back from either (and from text
/// that any other writer produced).
#[test]
fn timestamps_through_serde() {
    use roving::Timestamp;
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Event {
        at: Timestamp,
        until: Option<Timestamp>,
        log: Vec<Timestamp>,
        by_time: BTreeMap<String, Timestamp>,
    }
    let t = |s: i64, n: u32, o: Option<i32>| Timestamp::new(s, n, o).unwrap();
    let e = Event {
        at: t(1_700_000_000, 123_456_789, Some(3600)),
        until: Some(t(-1, 1, None)),
        log: vec![
            t(0, 0, None),
            t(0, 0, Some(0)),
            t(i64::MAX, 999_999_999, None),
        ],
        by_time: BTreeMap::from([("k".to_string(), t(86_400, 0, Some(-86_399)))]),
    };
    let bytes = roving::to_vec(&e).unwrap();
    let doc = roving::Document::open(&bytes).unwrap();
    let at = doc.get_path("at").unwrap().unwrap();
    assert_eq!(at.as_timestamp(), Some(e.at), "a native timestamp record");
    let last = doc.get_path("log[-1]").unwrap().unwrap();
    assert_eq!(last.as_timestamp(), Some(e.log[2]));
    assert_eq!(roving::from_slice::<Event>(&bytes).unwrap(), e);

    let json = serde_json::to_string(&e).unwrap();
    assert!(
        json.contains(r#""at":"2023-11-14T23:13:20.123456789+01:00""#),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), e);
    // JSON text -> roving (strings) -> Timestamp.
    let from_text = roving::json::from_json(json.as_bytes()).unwrap();
    assert_eq!(roving::from_slice::<Event>(&from_text).unwrap(), e);
    // A timestamp record read as a string gives its RFC 3339 text.
    let s: String = roving::from_slice(&roving::to_vec(&e.at).unwrap()).unwrap();
    assert_eq!(s, "2023-11-14T23:13:20.123456789+01:00");

    let bad = roving::to_vec(&"not a time").unwrap();
    let err = roving::from_slice::<Timestamp>(&bad).unwrap_err();
    assert!(err.to_string().contains("RFC 3339"), "{err}");
    assert!(roving::from_slice::<Timestamp>(&roving::to_vec(&5).unwrap()).is_err());
}

#[test]
fn integers_past_64_bits_read_as_the_nearest_float() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct F {
        a: f64,
        b: f32,
        c: Vec<f64>,
    }
    let big = "123456789012345678901234567890";
    let huge = format!("-{}", "9".repeat(400));
    for json in [
        format!(r#"{{"a":{big},"b":{big},"c":[{big},-{big},18446744073709551616]}}"#),
        format!(r#"{{"a":-{big},"b":1e3,"c":[]}}"#),
    ] {
        assert_eq!(
            decode::<F>(&json).unwrap(),
            serde_json::from_str::<F>(&json).unwrap()
        );
    }
    // Past the float's range: infinite (serde_json refuses such a number).
    let doc = roving::json::from_json(format!("[{huge}, {big}0000000000]").as_bytes()).unwrap();
    let got = roving::from_slice::<(f64, f32)>(&doc).unwrap();
    assert_eq!(got, (f64::NEG_INFINITY, f32::INFINITY));
}

/// A typed vector of `elems`, as a document.
fn vector_doc<T: roving::read::VectorElement>(elems: &[T]) -> Vec<u8> {
    let mut e = roving::Encoder::new();
    e.vector(elems).unwrap();
    e.finish().unwrap()
}

/// Reads `doc` as `Vec<T>` and checks it is `want`.
fn reads_as<T: DeserializeOwned + PartialEq + Debug>(doc: &[u8], want: &[T]) {
    let got = roving::from_slice::<Vec<T>>(doc);
    assert_eq!(
        got.as_deref().ok(),
        Some(want),
        "as Vec<{}>: {got:?}",
        std::any::type_name::<T>()
    );
}

/// A typed vector of every element type reads into a `Vec` of its own
/// type, of every wider integer type and of the floats (as serde reads
/// integers into floats), into fixed-size arrays and boxed slices; a
/// narrower or unsigned type takes the elements that fit and refuses
/// the others with the element's path.
#[test]
fn typed_vectors_read_into_sequences_of_matching_and_wider_types() {
    macro_rules! widths {
        ($doc:expr, $src:expr; $($t:ty),*) => {$(
            let want: Vec<$t> = $src.iter().map(|&x| <$t>::try_from(x).unwrap()).collect();
            reads_as::<$t>(&$doc, &want);
        )*};
    }
    macro_rules! floats {
        ($doc:expr, $src:expr) => {
            let want: Vec<f64> = $src.iter().map(|&x| x as f64).collect();
            reads_as::<f64>(&$doc, &want);
            let want: Vec<f32> = $src.iter().map(|&x| x as f32).collect();
            reads_as::<f32>(&$doc, &want);
        };
    }
    let i8s = [i8::MIN, -1, 0, i8::MAX];
    let d = vector_doc(&i8s);
    widths!(d, i8s; i8, i16, i32, i64, i128);
    floats!(d, i8s);
    let u8s = [0u8, 1, u8::MAX];
    let d = vector_doc(&u8s);
    widths!(d, u8s; u8, u16, u32, u64, u128, i16, i32, i64, i128);
    floats!(d, u8s);
    let i16s = [i16::MIN, -1, 0, i16::MAX];
    let d = vector_doc(&i16s);
    widths!(d, i16s; i16, i32, i64, i128);
    floats!(d, i16s);
    let u16s = [0u16, u16::MAX];
    let d = vector_doc(&u16s);
    widths!(d, u16s; u16, u32, u64, u128, i32, i64, i128);
    floats!(d, u16s);
    let i32s = [i32::MIN, -1, 0, i32::MAX];
    let d = vector_doc(&i32s);
    widths!(d, i32s; i32, i64, i128);
    floats!(d, i32s);
    let u32s = [0u32, u32::MAX];
    let d = vector_doc(&u32s);
    widths!(d, u32s; u32, u64, u128, i64, i128);
    floats!(d, u32s);
    let i64s = [i64::MIN, -1, 0, i64::MAX];
    let d = vector_doc(&i64s);
    widths!(d, i64s; i64, i128);
    floats!(d, i64s);
    let u64s = [0u64, u64::MAX];
    let d = vector_doc(&u64s);
    widths!(d, u64s; u64, u128, i128);
    floats!(d, u64s);
    let f32s = [f32::MIN, -0.0, 0.1, f32::MAX, f32::INFINITY];
    let d = vector_doc(&f32s);
    reads_as::<f32>(&d, &f32s);
    reads_as::<f64>(&d, &f32s.map(f64::from));
    let f64s = [f64::MIN, -0.0, 0.1, f64::MAX, f64::NEG_INFINITY];
    let d = vector_doc(&f64s);
    reads_as::<f64>(&d, &f64s);
    // Narrowed to the nearest binary32, as serde does for any f64.
    reads_as::<f32>(&d, &f64s.map(|x| x as f32));

    // Fixed-size arrays, boxed slices and tuples.
    let d = vector_doc(&[1u16, 2, 3]);
    assert_eq!(roving::from_slice::<[u32; 3]>(&d).unwrap(), [1, 2, 3]);
    assert_eq!(*roving::from_slice::<Box<[i64]>>(&d).unwrap(), [1i64, 2, 3]);
    assert_eq!(
        roving::from_slice::<(u8, i8, f32)>(&d).unwrap(),
        (1, 2, 3.0)
    );
    // Elements that do not fit are refused, with their path.
    let err = roving::from_slice::<Vec<u8>>(&vector_doc(&[1i16, 300])).unwrap_err();
    assert_eq!(err.path(), Some("$[1]"), "{err}");
    assert!(roving::from_slice::<Vec<u64>>(&vector_doc(&[-1i32])).is_err());
    assert!(roving::from_slice::<Vec<i64>>(&vector_doc(&[u64::MAX])).is_err());
    assert!(roving::from_slice::<Vec<i32>>(&vector_doc(&[1.0f64])).is_err());
}

/// A vector of binary32 keeps its NaN payloads (signalling ones too) when
/// read into `Vec<f32>`, as binary32 floats do.
#[test]
fn f32_vector_nan_payloads_read_bit_exact() {
    let bits = [0x7F80_0001u32, 0xFFC0_0001, 0x7FA0_1234, 0x3F80_0000];
    let d = vector_doc(&bits.map(f32::from_bits));
    let back: Vec<f32> = roving::from_slice(&d).unwrap();
    assert_eq!(back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), bits);
}
