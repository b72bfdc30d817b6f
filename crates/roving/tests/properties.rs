//! Property tests: arbitrary values round-trip exactly, encoding is
//! deterministic, JSON round-trips, and readers agree with the model.

mod common;

use common::neutral::{encode_doc, encode_doc_v1, from_value, normalize};
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

/// A list of maps whose key lists repeat (drawn from a few) or are unique,
/// some of more than 8 keys (an index), some with the empty key, with
/// nested maps: keyed maps (the first of each key list) and maps that
/// refer to them.
fn maps_with_key_lists() -> impl Strategy<Value = J> {
    let keys = prop::collection::vec(
        prop::sample::select(vec![
            "", "a", "b", "id", "name", "k1", "k2", "k3", "k4", "k5",
        ]),
        0..12,
    );
    let lists = prop::collection::vec(keys, 1..4);
    (
        lists,
        prop::collection::vec((0usize..8, any::<i64>(), 0u8..3), 0..24),
    )
        .prop_map(|(lists, picks)| {
            let maps: Vec<J> = picks
                .into_iter()
                .enumerate()
                .map(|(n, (which, x, kind))| {
                    let mut list: Vec<String> = lists[which % lists.len()]
                        .iter()
                        .map(|k| k.to_string())
                        .collect();
                    if which >= lists.len() {
                        // A key list of its own.
                        list.push(format!("unique{n}"));
                    }
                    let mut seen = std::collections::HashSet::new();
                    list.retain(|k| seen.insert(k.clone()));
                    let kvs: Vec<J> = list
                        .iter()
                        .enumerate()
                        .map(|(i, k)| {
                            let v = match kind {
                                0 => json!({ "int": (x.wrapping_add(i as i64)).to_string() }),
                                1 => json!(format!("{x}")),
                                _ => json!({ "map": [[k, { "int": i.to_string() }]] }),
                            };
                            json!([k, v])
                        })
                        .collect();
                    json!({ "map": kvs })
                })
                .collect();
            J::Array(maps)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Lists of maps round-trip as keyed maps (version 2) and as shape
    /// records and maps (version 1), and read the same through lookups,
    /// handles and iteration; maps with the same keys share a shape offset.
    #[test]
    fn keyed_maps_round_trip(v in maps_with_key_lists()) {
        let keyed = encode_doc(&v);
        let plain = encode_doc_v1(&v);
        for bytes in [&keyed, &plain] {
            roving::validate(bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let doc = roving::Document::open(bytes).unwrap();
            prop_assert_eq!(normalize(&from_value(doc.root())), normalize(&v));
            let mut shapes: std::collections::HashMap<Vec<String>, usize> = Default::default();
            let maps = doc.root().as_array().unwrap();
            for m in maps.iter().filter_map(|x| x.as_map()) {
                let keys: Vec<String> = m.keys().map(String::from).collect();
                // (None for the empty map, which has no record.)
                if let Some(shape) = m.shape_offset() {
                    prop_assert_eq!(*shapes.entry(keys.clone()).or_insert(shape), shape);
                }
                for (i, (k, val)) in m.iter().enumerate() {
                    prop_assert_eq!(m.position(k), Some(i));
                    prop_assert!(m.get(k) == Some(val));
                    prop_assert!(m.get_with(&roving::KeyHandle::new(k)) == Some(val));
                }
            }
            let lazy = roving::Document::open_lazy(bytes).unwrap();
            prop_assert_eq!(normalize(&from_value(lazy.root())), normalize(&v));
        }
        // Version 2 only if a map was written; never bigger than version 1.
        let has_map = v.as_array().unwrap().iter().any(|m| m["map"].as_array().is_some_and(|e| !e.is_empty()));
        prop_assert_eq!(keyed[2], if has_map { 2 } else { 1 });
        prop_assert_eq!(plain[2], 1);
        prop_assert!(keyed.len() <= plain.len());
    }

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
