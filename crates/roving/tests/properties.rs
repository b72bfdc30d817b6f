//! Property tests: arbitrary values round-trip exactly, encoding is
//! deterministic, JSON round-trips, and readers agree with the model.

mod common;

use common::neutral::{encode_doc, from_value, normalize};
use proptest::prelude::*;
use serde_json::{json, Value as J};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(|i| json!({ "int": i.to_string() })),
        (-40i64..40).prop_map(|i| json!({ "int": i.to_string() })),
        any::<u64>().prop_map(|i| json!({ "int": i.to_string() })),
        any::<i128>().prop_map(|i| json!({ "int": i.to_string() })),
        any::<u64>().prop_map(|b| json!({ "float": format!("{b:016x}") })),
        any::<f64>().prop_map(|f| json!({ "float": format!("{:016x}", f.to_bits()) })),
        (-1_000_000i32..1_000_000, 0u32..7).prop_map(|(m, e)| {
            let f = m as f64 / 10f64.powi(e as i32);
            json!({ "float": format!("{:016x}", f.to_bits()) })
        }),
        ".{0,80}".prop_map(J::String),
        prop::sample::select(vec!["a", "b", "key", "same"]).prop_map(|s| J::String(s.into())),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(|b| json!({ "bytes": hex(&b) })),
        (any::<i64>(), 0u32..1_000_000_000, prop::option::of(-86_399i32..=86_399)).prop_map(
            |(s, n, o)| json!({ "timestamp": { "seconds": s.to_string(), "nanos": n, "offset": o } })
        ),
        (0u8..10, prop::collection::vec(any::<u8>(), 0..64)).prop_map(|(code, data)| {
            let e = roving::ElemType::from_code(code).unwrap();
            let n = data.len() / e.size() * e.size();
            json!({ "vector": e.name(), "data": hex(&data[..n]) })
        }),
        (any::<u64>(), prop::collection::vec(any::<u8>(), 0..20))
            .prop_map(|(t, d)| json!({ "ext": t, "data": hex(&d) })),
    ]
}

fn value() -> impl Strategy<Value = J> {
    leaf().prop_recursive(5, 200, 12, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(J::Array),
            prop::collection::vec((".{0,12}", inner), 0..14).prop_map(|kvs| {
                let mut seen = std::collections::HashSet::new();
                let kvs: Vec<J> = kvs
                    .into_iter()
                    .filter(|(k, _)| seen.insert(k.clone()))
                    .map(|(k, v)| json!([k, v]))
                    .collect();
                json!({ "map": kvs })
            }),
        ]
    })
}

/// Plain JSON values (finite floats) for the JSON round trip.
fn json_value() -> impl Strategy<Value = J> {
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|i| json!(i)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,30}".prop_map(J::String),
    ];
    leaf.prop_recursive(5, 100, 10, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..10).prop_map(J::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..10)
                .prop_map(|m| J::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn round_trip(v in value()) {
        let bytes = encode_doc(&v);
        let doc = roving::Document::open(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(normalize(&from_value(doc.root())), normalize(&v));
    }

    #[test]
    fn encoding_is_deterministic(v in value()) {
        prop_assert_eq!(encode_doc(&v), encode_doc(&v));
    }

    #[test]
    fn json_round_trip(v in json_value()) {
        let text = serde_json::to_string(&v).unwrap();
        let bytes = roving::json::from_json(text.as_bytes()).unwrap();
        let doc = roving::Document::open(&bytes).unwrap();
        let back: J = serde_json::from_str(&roving::json::to_json(doc.root()).unwrap()).unwrap();
        prop_assert_eq!(back, v);
    }

    #[test]
    fn serde_round_trip(v in json_value()) {
        let bytes = roving::to_vec(&v).unwrap();
        let back: J = roving::from_slice(&bytes).unwrap();
        prop_assert_eq!(back, v);
    }

    #[test]
    fn lookups_agree_with_iteration(v in value()) {
        let bytes = encode_doc(&v);
        let doc = roving::Document::open(&bytes).unwrap();
        let mut stack = vec![doc.root()];
        while let Some(x) = stack.pop() {
            match x {
                roving::Value::Map(m) => {
                    for (i, (k, val)) in m.iter().enumerate() {
                        prop_assert_eq!(m.position(k), Some(i));
                        prop_assert!(m.get(k) == Some(val));
                        let h = roving::KeyHandle::new(k);
                        prop_assert!(m.get_with(&h) == Some(val));
                        prop_assert!(m.get_with(&h) == Some(val));
                        stack.push(val);
                    }
                    prop_assert!(m.get("\u{1}absent").is_none(), "absent key found");
                }
                roving::Value::Array(a) => {
                    for (i, val) in a.iter().enumerate() {
                        prop_assert!(a.get(i) == Some(val));
                        stack.push(val);
                    }
                    prop_assert!(a.get(a.len()).is_none());
                }
                _ => {}
            }
        }
    }

    /// Text parsers that take user or document strings (RFC 3339
    /// timestamps, which typed decoding reads from document strings, and
    /// paths) give a value or an error on any text: near-valid text (a
    /// valid timestamp or path with characters changed) and arbitrary.
    #[test]
    fn text_parsers_never_panic(
        secs in any::<i64>(),
        nanos in 0u32..1_000_000_000,
        offset in prop::option::of(-86_399i32..=86_399),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<char>()), 0..3),
        junk in ".{0,40}",
        path in "[$.\\[\\]\"a-z0-9u\\\\-]{0,24}",
    ) {
        let t = roving::Timestamp::new(secs, nanos, offset).unwrap();
        let text = t.to_rfc3339();
        prop_assert_eq!(text.parse::<roving::Timestamp>().ok(), Some(t));
        let mut chars: Vec<char> = text.chars().collect();
        for (i, c) in edits {
            let i = i.index(chars.len());
            chars[i] = c;
        }
        let edited: String = chars.into_iter().collect();
        if let Ok(back) = edited.parse::<roving::Timestamp>() {
            // Whatever parses writes back as a timestamp that parses to itself.
            prop_assert_eq!(back.to_rfc3339().parse::<roving::Timestamp>().ok(), Some(back));
        }
        let _ = junk.parse::<roving::Timestamp>();
        let _ = roving::read::PathSegment::parse(&junk);
        let doc = roving::json::from_json(br#"{"a":[1,{"b":2}],"$x":3}"#).unwrap();
        let doc = roving::Document::open(&doc).unwrap();
        if let Ok(segs) = roving::read::PathSegment::parse(&path) {
            let _ = doc.root().path_segments(&segs);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut with_header = b"RV\x01".to_vec();
        with_header.extend_from_slice(&b);
        for input in [&b, &with_header] {
            if let Ok(doc) = roving::Document::open(input) {
                let _ = roving::json::to_json(doc.root());
            }
        }
    }
}

proptest! {
    // Big inputs: fewer cases.
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn wide_containers_validate(
        items in prop::collection::vec(
            prop_oneof![
                1 => any::<i64>(),
                12 => -8192i64..8192,
                8 => 8192i64..40_000,
                1 => prop::sample::select(vec![31i64, 32, -33, 8191, 8192, -8193, (1 << 29) - 1,
                    1 << 29, (1 << 61) - 1, 1 << 61, i64::MIN, i64::MAX]),
            ].prop_map(J::from),
            0..25_000,
        ),
        strings in prop::collection::vec("[a-z]{0,70}", 0..300),
    ) {
        // Long arrays mixing ints of every inline width with strings written
        // far back: the encoder's slot widths must always validate.
        let mut e = roving::Encoder::new();
        e.begin_array().unwrap();
        for s in &strings {
            e.str(s).unwrap();
        }
        e.begin_array().unwrap();
        for (i, v) in items.iter().enumerate() {
            e.i64(v.as_i64().unwrap()).unwrap();
            if i % 97 == 0 && !strings.is_empty() {
                e.str(&strings[i % strings.len()]).unwrap();
            }
        }
        e.end_array().unwrap();
        e.end_array().unwrap();
        let b = e.finish().unwrap();
        let doc = roving::Document::open(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let inner = doc.root().index(strings.len()).unwrap();
        let ints: Vec<i64> = inner.as_array().unwrap().iter().filter_map(|v| v.as_i64()).collect();
        let want: Vec<i64> = items.iter().map(|v| v.as_i64().unwrap()).collect();
        prop_assert_eq!(ints, want);
    }
}

#[test]
fn serde_structs_borrow() {
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Friend<'a> {
        id: u32,
        #[serde(borrow)]
        name: &'a str,
        #[serde(with = "serde_bytes_like")]
        raw: &'a [u8],
    }
    mod serde_bytes_like {
        pub fn serialize<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(b)
        }
        pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'de [u8], D::Error> {
            serde::Deserialize::deserialize(d)
        }
    }
    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    enum Shape {
        Unit,
        Circle(f64),
        Rect { w: u8, h: u8 },
        Pair(i8, i8),
    }
    let f = Friend {
        id: 7,
        name: "Ada",
        raw: b"\x00\x01",
    };
    let bytes = roving::to_vec(&f).unwrap();
    let back: Friend<'_> = roving::from_slice(&bytes).unwrap();
    assert_eq!(back, f);
    let name_ptr = back.name.as_ptr() as usize;
    let range = bytes.as_ptr() as usize..bytes.as_ptr() as usize + bytes.len();
    assert!(range.contains(&name_ptr), "the &str borrows the document");
    let shapes = vec![
        Shape::Unit,
        Shape::Circle(1.5),
        Shape::Rect { w: 1, h: 2 },
        Shape::Pair(-1, 1),
    ];
    let back: Vec<Shape> = roving::from_slice(&roving::to_vec(&shapes).unwrap()).unwrap();
    assert_eq!(back, shapes);
    // A type mismatch names the path.
    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Strict {
        views: u32,
    }
    let bad = roving::json::from_json(br#"[{"views":1},{"views":"x"}]"#).unwrap();
    let e = roving::from_slice::<Vec<Strict>>(&bad).unwrap_err();
    assert_eq!(e.path(), Some("$[1].views"), "{e}");
    assert!(e.to_string().contains("at $[1].views"), "{e}");
}

/// Arrays of only integers of one range (each of the eight integer
/// element types' ranges, and a mix), or of only floats (binary32 values,
/// short decimals at several exponents, any binary64, zeros).
fn number_array() -> impl Strategy<Value = Vec<J>> {
    let int = |lo: i128, hi: i128| (lo..=hi).prop_map(|i| json!({ "int": i.to_string() }));
    let float = |f: f64| json!({ "float": format!("{:016x}", f.to_bits()) });
    let ints = prop_oneof![
        int(i8::MIN.into(), i8::MAX.into()),
        int(0, u8::MAX.into()),
        int(i16::MIN.into(), i16::MAX.into()),
        int(0, u16::MAX.into()),
        int(i32::MIN.into(), i32::MAX.into()),
        int(0, u32::MAX.into()),
        int(i64::MIN.into(), i64::MAX.into()),
        int(0, u64::MAX.into()),
        int(-(1 << 61) - 2, 1 << 61),
    ];
    let floats = prop_oneof![
        any::<f32>().prop_map(move |f| float(f as f64)),
        (-1_000_000_000i32..1_000_000_000, 0u32..10)
            .prop_map(move |(m, e)| float(m as f64 / 10f64.powi(e as i32))),
        (-1000i32..1000, 0i32..23).prop_map(move |(m, e)| float(m as f64 * 10f64.powi(e))),
        any::<f64>().prop_map(float),
        prop::sample::select(vec![0.0, -0.0, f64::NAN, f64::INFINITY, 0.1]).prop_map(float),
    ];
    prop_oneof![
        // One strategy for all elements (one range or one kind of float),
        // or each element its own.
        prop::collection::vec(int(-100, 100), 1..40),
        (0usize..9).prop_flat_map(move |k| {
            let r = [
                (i8::MIN as i128, i8::MAX as i128),
                (0, u8::MAX as i128),
                (i16::MIN as i128, i16::MAX as i128),
                (0, u16::MAX as i128),
                (i32::MIN as i128, i32::MAX as i128),
                (0, u32::MAX as i128),
                (i64::MIN as i128, i64::MAX as i128),
                (0, u64::MAX as i128),
                (-(1i128 << 61) - 2, 1 << 61),
            ][k];
            prop::collection::vec(int(r.0, r.1), 1..40)
        }),
        prop::collection::vec(ints, 1..40),
        prop::collection::vec(floats.clone(), 1..40),
        (0usize..3).prop_flat_map(move |k| {
            let f = [
                (-1_000_000i32..1_000_000)
                    .prop_map(move |m| float(m as f64 / 1e6))
                    .boxed(),
                any::<f32>().prop_map(move |f| float(f as f64)).boxed(),
                (-100i32..100)
                    .prop_map(move |m| float(m as f64 / 100.0))
                    .boxed(),
            ];
            prop::collection::vec(f[k].clone(), 1..40)
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// An array of only numbers round-trips exactly, packed as a number
    /// array whenever one element type holds all its elements, and reads
    /// as the same array written with slots (the numbers and a null).
    #[test]
    fn number_arrays_round_trip(xs in number_array()) {
        let v = J::Array(xs.clone());
        let bytes = encode_doc(&v);
        let doc = roving::Document::open(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(normalize(&from_value(doc.root())), normalize(&v));
        let a = doc.root().as_array().unwrap();
        let ints: Option<Vec<i128>> = xs.iter().map(|x| x["int"].as_str()?.parse().ok()).collect();
        let fits = ints.as_ref().is_none_or(|i| {
            let (lo, hi) = (*i.iter().min().unwrap(), *i.iter().max().unwrap());
            lo >= 0 || hi <= i64::MAX as i128
        });
        prop_assert_eq!(a.numbers().is_some(), fits);
        prop_assert_eq!(doc.version(), if fits { 2 } else { 1 });
        // The same numbers in an array of slots (a null keeps it one).
        let mut with_null = xs.clone();
        with_null.push(J::Null);
        let slots = encode_doc(&J::Array(with_null));
        let sdoc = roving::Document::open(&slots).unwrap();
        let s = sdoc.root().as_array().unwrap();
        prop_assert!(s.numbers().is_none());
        for (i, x) in a.iter().enumerate() {
            prop_assert!(x == s.get(i).unwrap(), "element {}", i);
        }
        // A copy writes the same bytes; JSON and serde read the same.
        let mut e = roving::Encoder::new();
        e.write_value(doc.root()).unwrap();
        prop_assert_eq!(e.finish().unwrap(), bytes.clone());
        let json_a = roving::json::to_json(doc.root()).unwrap();
        let json_s = roving::json::to_json(sdoc.root()).unwrap();
        prop_assert_eq!(format!("{},null]", &json_a[..json_a.len() - 1]), json_s);
        // The one-call writers give the same bytes.
        let floats: Option<Vec<f64>> = xs
            .iter()
            .map(|x| Some(f64::from_bits(u64::from_str_radix(x["float"].as_str()?, 16).ok()?)))
            .collect();
        if let Some(f) = floats {
            let mut e = roving::Encoder::new();
            e.array_f64(&f).unwrap();
            prop_assert_eq!(e.finish().unwrap(), bytes.clone());
        }
        let small: Option<Vec<i64>> = ints
            .as_ref()
            .and_then(|i| i.iter().map(|&v| i64::try_from(v).ok()).collect());
        if let Some(i) = small {
            let mut e = roving::Encoder::new();
            e.array_i64(&i).unwrap();
            prop_assert_eq!(e.finish().unwrap(), bytes.clone());
        }
        if let Some(ints) = ints.filter(|_| fits) {
            if ints.iter().all(|&i| i64::try_from(i).is_ok()) {
                let got: Vec<i64> = roving::from_slice(&bytes).unwrap();
                prop_assert_eq!(got.iter().map(|&i| i as i128).collect::<Vec<_>>(), ints);
            }
        }
    }
}

/// Strings for string arrays: short ASCII, multi-byte, long (past the
/// short form), empty, and a few repeated (which pack only when the record
/// is still smaller than slots).
fn array_string() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z0-9+.@]{1,12}",
        2 => "\\PC{0,6}",
        1 => "[a-z]{60,140}",
        1 => Just(String::new()),
        4 => prop::sample::select(vec!["x".to_string(), "dup".to_string(), "again".to_string()]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arrays of strings (packed or not) round-trip through every reader:
    /// serde (owned and borrowed), get, iteration both ways, `strings`,
    /// JSON, lazily opened documents, and a copy gives the same bytes.
    /// Strings written before and after the array stay readable.
    #[test]
    fn string_arrays_round_trip(
        items in prop::collection::vec(array_string(), 0..80),
        before in prop::option::of(array_string()),
        after in prop::option::of(array_string()),
    ) {
        let bytes = roving::to_vec(&items).unwrap();
        let back: Vec<String> = roving::from_slice(&bytes).unwrap();
        prop_assert_eq!(&back, &items);
        let borrowed: Vec<&str> = roving::from_slice(&bytes).unwrap();
        prop_assert_eq!(&borrowed, &items);
        let doc = roving::Document::open(&bytes).unwrap();
        let packable = items.len() >= 8 && items.iter().all(|s| !s.is_empty());
        if !packable {
            prop_assert_eq!(bytes[2], 1);
        } else {
            // The slot form of the same array (a mark taken of a string
            // inside it keeps it in slots): a string array record only
            // where it makes the document smaller, else these very bytes.
            let mut e = roving::Encoder::new();
            e.begin_array().unwrap();
            for s in &items {
                e.str(s).unwrap();
                let _ = e.mark();
            }
            e.end_array().unwrap();
            let slots = e.finish().unwrap();
            prop_assert_eq!(slots[2], 1);
            if bytes[2] == 2 {
                prop_assert!(bytes.len() < slots.len(), "{} {}", bytes.len(), slots.len());
            } else {
                prop_assert_eq!(&bytes, &slots);
            }
        }
        if let Some(a) = doc.root().as_array() {
            prop_assert_eq!(a.is_string_array(), bytes[2] == 2);
            for (i, s) in items.iter().enumerate() {
                prop_assert_eq!(a.get(i).and_then(|v| v.as_str()), Some(s.as_str()));
            }
            let rev: Vec<&str> = a.iter().rev().map(|v| v.as_str().unwrap()).collect();
            prop_assert!(rev.iter().rev().eq(items.iter()));
            if let Some(strings) = a.strings() {
                let seq: Vec<&str> = strings.map(Option::unwrap).collect();
                prop_assert_eq!(&seq, &items);
            }
        }
        let json = roving::json::to_json(doc.root()).unwrap();
        prop_assert_eq!(json, serde_json::to_string(&items).unwrap());
        let lazy = roving::Document::open_lazy(&bytes).unwrap();
        prop_assert_eq!(lazy.root(), doc.root());
        let mut e = roving::Encoder::new();
        e.write_value(doc.root()).unwrap();
        prop_assert_eq!(e.finish().unwrap(), bytes.clone());

        // With strings around it: the same array, and the strings after
        // it read back even when equal to one of its elements.
        let mut e = roving::Encoder::new();
        e.begin_array().unwrap();
        if let Some(s) = &before {
            e.str(s).unwrap();
        }
        e.begin_array().unwrap();
        for s in &items {
            e.str(s).unwrap();
        }
        e.end_array().unwrap();
        for s in after.iter().chain(items.iter().take(3)) {
            e.str(s).unwrap();
        }
        e.end_array().unwrap();
        let b = e.finish().unwrap();
        let d = roving::Document::open(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut want: Vec<J> = before.iter().map(|s| J::from(s.as_str())).collect();
        want.push(J::from(items.clone()));
        want.extend(after.iter().chain(items.iter().take(3)).map(|s| J::from(s.as_str())));
        prop_assert_eq!(roving::json::to_json(d.root()).unwrap(), J::Array(want).to_string());
    }

    /// Damaged string array documents never panic: validation says yes or
    /// no, and what validates reads back; lazily opened, every element
    /// reads as a string or an error.
    #[test]
    fn damaged_string_arrays_never_panic(
        items in prop::collection::vec("[a-zé]{1,20}", 8..40),
        damage in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let mut items = items;
        items.sort();
        items.dedup();
        let mut bytes = roving::to_vec(&items).unwrap();
        let n = bytes.len();
        for (at, b) in damage {
            bytes[3 + at.index(n - 3)] = b;
        }
        if let Ok(doc) = roving::Document::open(&bytes) {
            let _ = roving::json::to_json(doc.root());
        }
        if let Ok(doc) = roving::Document::open_lazy(&bytes) {
            if let Some(a) = doc.root().as_array() {
                for i in 0..a.len().min(64) {
                    let _ = a.try_get(i);
                    let _ = a.get(i);
                }
                if let Some(s) = a.strings() {
                    let _ = s.take(64).count();
                }
            }
        }
    }
}
