//! Shared dictionaries (`docs/FORMAT.md` section 23): round trips,
//! growth, wrong and shorter dictionaries, deltas, hostile bytes, freeze.

use proptest::prelude::*;
use roving::{Dictionary, Document, Encoder, ErrorKind};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
#[allow(non_snake_case)]
struct SimpleObject {
    Id: i64,
    Name: String,
    Address: String,
    Scores: Vec<i64>,
}

fn simple() -> SimpleObject {
    SimpleObject {
        Id: 100_000,
        Name: "Simple".into(),
        Address: "Planet Earth".into(),
        Scores: (0..10).collect(),
    }
}

fn json_of(bytes: &[u8], dict: &Dictionary) -> String {
    let mut scratch = Vec::new();
    let doc = Document::open_with(bytes, dict, &mut scratch).unwrap();
    roving::json::to_json(doc.root()).unwrap()
}

#[test]
fn simple_object_sizes() {
    let plain = roving::to_vec(&simple()).unwrap();
    assert_eq!(plain.len(), 78);
    let mut dict = Dictionary::new();
    let first = roving::serde::to_vec_with(&simple(), &mut dict).unwrap();
    assert_eq!(first, plain, "an empty dictionary writes a plain document");
    assert_eq!(dict.len(), 1);
    let second = roving::serde::to_vec_with(&simple(), &mut dict).unwrap();
    assert_eq!(second.len(), 59, "{second:02x?}");
    assert_eq!(dict.len(), 1, "no new shape");
    let back: SimpleObject = roving::serde::from_slice_with(&second, &dict).unwrap();
    assert_eq!(back, simple());
    // With the two string values as dictionary entries too.
    dict.add_string("Simple").unwrap();
    dict.add_string("Planet Earth").unwrap();
    let third = roving::serde::to_vec_with(&simple(), &mut dict).unwrap();
    assert_eq!(third.len(), 39, "{third:02x?}");
    let back: SimpleObject = roving::serde::from_slice_with(&third, &dict).unwrap();
    assert_eq!(back, simple());
}

#[test]
fn older_documents_read_with_newer_states() {
    let mut dict = Dictionary::new();
    let mut docs = Vec::new();
    for i in 0..20 {
        let json = format!(r#"{{"k{i}":{i},"common":"x","n":[{i},"k{i}"]}}"#);
        let doc = roving::json::from_json_dict(json.as_bytes(), &mut dict).unwrap();
        docs.push((json, doc));
    }
    assert_eq!(dict.len(), 20);
    for (json, doc) in &docs {
        assert_eq!(&json_of(doc, &dict), json);
    }
    // A copy made from the bytes reads them all too.
    let copy = Dictionary::from_bytes(&dict.to_bytes()).unwrap();
    assert_eq!(copy, dict);
    assert_eq!(copy.id(), dict.id());
    for (json, doc) in &docs {
        assert_eq!(&json_of(doc, &copy), json);
    }
}

#[test]
fn wrong_or_short_dictionaries_are_refused_with_the_id() {
    let mut dict = Dictionary::new();
    dict.add_shape(&["a", "b"]).unwrap();
    dict.add_shape(&["c"]).unwrap();
    let doc = roving::json::from_json_dict(br#"{"c":{"a":1,"b":2}}"#, &mut dict).unwrap();
    let needs = format!("{:016x}", dict.id());
    let err = Document::open(&doc).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::DictionaryRequired);
    assert!(err.to_string().contains(&needs), "{err}");
    assert!(err.to_string().contains("2 entries"), "{err}");
    assert_eq!(
        Document::open_lazy(&doc).unwrap_err().kind(),
        &ErrorKind::DictionaryRequired
    );
    assert_eq!(
        roving::validate(&doc).unwrap_err().kind(),
        &ErrorKind::DictionaryRequired
    );
    let mut scratch = Vec::new();
    let mut short = Dictionary::new();
    short.add_shape(&["a", "b"]).unwrap();
    let err = Document::open_with(&doc, &short, &mut scratch).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::DictionaryMismatch);
    assert!(err.to_string().contains(&needs), "{err}");
    let mut other = Dictionary::new();
    other.add_shape(&["a", "b"]).unwrap();
    other.add_shape(&["d"]).unwrap();
    let err = Document::open_with(&doc, &other, &mut scratch).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::DictionaryMismatch);
    assert!(err.to_string().contains(&needs), "{err}");
    assert_eq!(json_of(&doc, &dict), r#"{"c":{"a":1,"b":2}}"#);
}

#[test]
fn bound_base_len_names_the_prefix_a_document_is_read_after() {
    let mut dict = Dictionary::new();
    let mut docs = Vec::new();
    for i in 0..4 {
        let json = format!(r#"{{"k{i}":{i}}}"#);
        docs.push(roving::json::from_json_dict(json.as_bytes(), &mut dict).unwrap());
    }
    let mut scratch = Vec::new();
    let mut lens = Vec::new();
    for doc in &docs[1..] {
        let n = dict.bound_base_len(doc).expect("bound");
        // The plain document begins with those bytes of the base, which
        // are the same for every document bound to the dictionary.
        let plain = roving::dictionary::resolve(doc, &dict, &mut scratch)
            .unwrap()
            .to_vec();
        let full = roving::dictionary::resolve(&docs[3], &dict, &mut scratch).unwrap();
        assert_eq!(plain[..n], full[..n]);
        assert!(n <= dict.base_len());
        lens.push(n);
    }
    assert!(lens.windows(2).all(|w| w[0] < w[1]), "{lens:?}");
    // The first document was written before the dictionary had entries.
    assert_eq!(dict.bound_base_len(&docs[0]), None);
    // Another dictionary, or a shorter one, has no base for it.
    let mut short = Dictionary::new();
    short.add_shape(&["k0"]).unwrap();
    assert_eq!(short.bound_base_len(&docs[3]), None);
    let mut other = Dictionary::new();
    for k in ["x", "y", "z"] {
        other.add_shape(&[k]).unwrap();
    }
    assert_eq!(other.bound_base_len(&docs[3]), None);
    assert_eq!(dict.bound_base_len(b"not a document"), None);
}

#[test]
fn frozen_dictionaries_do_not_grow() {
    let mut dict = Dictionary::new();
    dict.add_shape(&["a"]).unwrap();
    dict.freeze();
    assert!(dict.is_frozen());
    let doc = roving::json::from_json_dict(br#"[{"a":1},{"b":2}]"#, &mut dict).unwrap();
    assert_eq!(dict.len(), 1);
    assert_eq!(json_of(&doc, &dict), r#"[{"a":1},{"b":2}]"#);
    assert_eq!(
        dict.add_string("x").unwrap_err().kind(),
        &ErrorKind::BadDictionary
    );
    // Finding an entry it has is fine.
    assert_eq!(dict.add_shape(&["a"]).unwrap(), 0);
}

#[test]
fn ids_chain_over_entries() {
    let mut a = Dictionary::new();
    let mut b = Dictionary::new();
    assert_eq!(a.id(), b.id());
    assert_eq!(a.id_at(0), Some(a.id()));
    assert_eq!(a.id_at(1), None);
    a.add_string("x").unwrap();
    b.add_shape(&["x"]).unwrap();
    assert_ne!(a.id(), b.id(), "a string and a shape of one key differ");
    let id1 = a.id();
    a.add_shape(&["p", "q"]).unwrap();
    assert_eq!(a.id_at(1), Some(id1));
    assert_eq!(a.len(), 2);
    assert_eq!(
        a.add_string("").unwrap_err().kind(),
        &ErrorKind::BadDictionary
    );
    assert_eq!(
        a.add_shape(&["k", "k"]).unwrap_err().kind(),
        &ErrorKind::BadDictionary
    );
    assert_eq!(
        a.add_shape::<&str>(&[]).unwrap_err().kind(),
        &ErrorKind::BadDictionary
    );
}

#[test]
fn deltas_extend_idempotently_and_refuse_disagreement() {
    let mut a = Dictionary::new();
    a.add_shape(&["a", "b"]).unwrap();
    let mut b = Dictionary::from_bytes(&a.to_bytes()).unwrap();
    a.add_string("s").unwrap();
    a.add_shape(&["c", ""]).unwrap();
    let delta = a.delta_since(1);
    b.extend_from_delta(&delta).unwrap();
    assert_eq!(a, b);
    b.extend_from_delta(&delta).unwrap();
    b.extend_from_delta(&a.delta_since(0)).unwrap();
    b.extend_from_delta(&a.delta_since(3)).unwrap();
    assert_eq!(a, b);
    // A delta starting past the end, or of another dictionary.
    let mut c = Dictionary::new();
    assert_eq!(
        c.extend_from_delta(&delta).unwrap_err().kind(),
        &ErrorKind::BadDictionary
    );
    c.add_shape(&["x"]).unwrap();
    assert_eq!(
        c.extend_from_delta(&delta).unwrap_err().kind(),
        &ErrorKind::BadDictionary
    );
    let mut d = Dictionary::new();
    d.add_shape(&["x"]).unwrap();
    d.add_string("s").unwrap();
    let before = c.clone();
    assert!(c.extend_from_delta(&a.delta_since(0)).is_err());
    assert_eq!(c, before, "unchanged after an error");
    assert!(
        Dictionary::from_bytes(&delta).is_err(),
        "a delta is not a whole dictionary"
    );
    assert!(Dictionary::from_bytes(&roving::to_vec(&[1]).unwrap()).is_err());
}

#[test]
fn encoder_reuse_and_resets() {
    let mut dict = Dictionary::new();
    dict.add_shape(&["x", "y"]).unwrap();
    let mut e = Encoder::with_dictionary(&dict);
    assert!(e.is_empty() && e.is_bound());
    let write = |e: &mut Encoder, name: &str| {
        e.begin_array().unwrap();
        e.begin_map().unwrap();
        e.key("x").unwrap();
        e.i64(1).unwrap();
        e.key("y").unwrap();
        e.str(name).unwrap();
        e.end_map().unwrap();
        e.begin_map().unwrap();
        e.key("z").unwrap();
        e.str(name).unwrap();
        e.end_map().unwrap();
        e.end_array().unwrap();
    };
    // finish_reset, finish_with and finish_into keep the encoder bound to
    // the dictionary, with its base: each document is the same as from a
    // new encoder.
    let fresh = |name: &str| {
        let mut f = Encoder::with_dictionary(&dict);
        write(&mut f, name);
        f.finish().unwrap()
    };
    write(&mut e, "Ada");
    let a = e.finish_reset().unwrap();
    assert_eq!(a, fresh("Ada"));
    assert!(e.is_bound() && e.is_empty());
    write(&mut e, "Grace");
    let b = e.finish_with(|b| b.to_vec()).unwrap();
    assert_eq!(b, fresh("Grace"));
    write(&mut e, "Linus");
    let mut c = vec![7u8];
    e.finish_into(&mut c).unwrap();
    assert_eq!(&c[1..], &fresh("Linus")[..]);
    e.use_dictionary(&dict); // the same state: keeps the base
    write(&mut e, "Ada");
    assert_eq!(e.finish_reset().unwrap(), a);
    assert_eq!(json_of(&a, &dict), r#"[{"x":1,"y":"Ada"},{"z":"Ada"}]"#);
    // A grown dictionary: the base is written again.
    dict.add_string("Ada").unwrap();
    e.use_dictionary(&dict);
    write(&mut e, "Ada");
    let d = e.finish_reset().unwrap();
    assert!(d.len() < a.len());
    assert_eq!(json_of(&d, &dict), r#"[{"x":1,"y":"Ada"},{"z":"Ada"}]"#);
    // After a reset, a plain document.
    e.reset();
    assert!(!e.is_bound());
    e.i64(5).unwrap();
    let plain = e.finish().unwrap();
    assert_eq!(Document::open(&plain).unwrap().root().as_i64(), Some(5));
}

/// An array of 300 maps `{"key<i>": [1.5, 2.5] (f64 vector), "v": i}`.
fn write_300_maps(e: &mut Encoder) {
    e.begin_array().unwrap();
    for i in 0..300 {
        e.begin_map().unwrap();
        e.key(&format!("key{i}")).unwrap();
        e.vector(&[1.5f64, 2.5][..]).unwrap();
        e.key("v").unwrap();
        e.i64(i).unwrap();
        e.end_map().unwrap();
    }
    e.end_array().unwrap();
}

#[test]
fn vectors_and_long_documents_after_a_base() {
    let mut dict = Dictionary::new();
    for i in 0..300 {
        dict.add_shape(&[format!("key{i}"), "v".into()]).unwrap();
    }
    let mut e = Encoder::with_dictionary(&dict);
    write_300_maps(&mut e);
    let doc = e.finish_growing(&mut dict).unwrap();
    assert_eq!(dict.len(), 300);
    let mut scratch = Vec::new();
    let d = Document::open_with(&doc, &dict, &mut scratch).unwrap();
    let m = d.root().index(299).unwrap();
    assert_eq!(m.get("v").and_then(|v| v.as_i64()), Some(299));
    let mut e = Encoder::new();
    write_300_maps(&mut e);
    let plain_size = e.finish().unwrap().len();
    assert!(doc.len() < plain_size, "{} vs {plain_size}", doc.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes give a dictionary or an error, never a panic; so do
    /// deltas, and bound documents with any bytes after the binding.
    #[test]
    fn hostile_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = Dictionary::from_bytes(&bytes);
        let mut d = Dictionary::new();
        d.add_shape(&["a", "b"]).unwrap();
        let _ = d.extend_from_delta(&bytes);
        let mut doc = b"RV\x02".to_vec();
        roving::layout::write_binding(&mut doc, d.len() as u64, d.id());
        doc.extend_from_slice(&bytes);
        let mut scratch = Vec::new();
        if let Ok(x) = Document::open_with(&doc, &d, &mut scratch) {
            let _ = roving::json::to_json(x.root());
        }
        let mut scratch = Vec::new();
        if let Ok(x) = Document::open_lazy_with(&doc, &d, &mut scratch) {
            let _ = x.root().get("a");
        }
    }

    /// Mutated dictionary bytes are refused or read as some dictionary.
    #[test]
    fn mutated_dictionary_bytes(i in 0usize..1000, b in any::<u8>()) {
        let mut d = Dictionary::new();
        d.add_shape(&["alpha", "beta"]).unwrap();
        d.add_string("gamma").unwrap();
        let mut bytes = d.to_bytes();
        let i = i % bytes.len();
        bytes[i] = b;
        if let Ok(x) = Dictionary::from_bytes(&bytes) {
            prop_assert_eq!(Dictionary::from_bytes(&x.to_bytes()).unwrap(), x);
        }
    }

    /// Round trips of JSON-like values through a growing dictionary.
    #[test]
    fn round_trips(keys in proptest::collection::vec("[a-d]{0,3}", 1..6), n in 1usize..4) {
        let mut dict = Dictionary::new();
        for round in 0..n {
            let mut e = Encoder::with_dictionary(&dict);
            e.begin_array().unwrap();
            e.begin_map().unwrap();
            for (i, k) in keys.iter().enumerate() {
                e.key(k).unwrap();
                e.i64((i + round) as i64).unwrap();
            }
            e.end_map().unwrap();
            e.str(&keys[0]).unwrap();
            e.end_array().unwrap();
            let doc = e.finish_growing(&mut dict).unwrap();
            let mut plain = Encoder::new();
            plain.begin_array().unwrap();
            plain.begin_map().unwrap();
            for (i, k) in keys.iter().enumerate() {
                plain.key(k).unwrap();
                plain.i64((i + round) as i64).unwrap();
            }
            plain.end_map().unwrap();
            plain.str(&keys[0]).unwrap();
            plain.end_array().unwrap();
            let plain = plain.finish().unwrap();
            let want = roving::json::to_json(Document::open(&plain).unwrap().root()).unwrap();
            prop_assert_eq!(json_of(&doc, &dict), want);
        }
    }

    /// A bound encoder reused (rewound to its base) writes the bytes a
    /// new one writes, whatever the documents before: strings, string
    /// arrays, number arrays, maps of dictionary and new shapes. (Up to
    /// 100 strings a document: a rewind takes back a few strings one by
    /// one, and more than 64 in a pass over the table.)
    #[test]
    fn reused_bound_encoder_writes_what_a_new_one_writes(
        docs in proptest::collection::vec(
            (proptest::collection::vec("[a-z]{1,3}", 1..100), proptest::collection::vec(any::<i32>(), 0..10)),
            1..5,
        )
    ) {
        let mut dict = Dictionary::new();
        dict.add_shape(&["a", "b"]).unwrap();
        dict.add_string("c").unwrap();
        let write = |e: &mut Encoder, strs: &[String], nums: &[i32]| {
            e.begin_array().unwrap();
            e.begin_map().unwrap();
            e.key("a").unwrap();
            e.begin_array().unwrap();
            for s in strs {
                e.str(s).unwrap();
            }
            e.end_array().unwrap();
            e.key("b").unwrap();
            e.begin_array().unwrap();
            for &n in nums {
                e.i64(n as i64).unwrap();
            }
            e.end_array().unwrap();
            e.end_map().unwrap();
            e.begin_map().unwrap();
            e.key(&strs[0]).unwrap();
            e.str("c").unwrap();
            e.end_map().unwrap();
            // The strings again, as records of their own (an array of
            // strings and ints is no string array).
            e.begin_array().unwrap();
            for s in strs.iter().rev() {
                e.str(s).unwrap();
                e.i64(0).unwrap();
            }
            e.end_array().unwrap();
            e.end_array().unwrap();
        };
        let mut reused = Encoder::with_dictionary(&dict);
        for (strs, nums) in &docs {
            write(&mut reused, strs, nums);
            let got = reused.finish_reset().unwrap();
            let mut fresh = Encoder::with_dictionary(&dict);
            write(&mut fresh, strs, nums);
            prop_assert_eq!(&got, &fresh.finish().unwrap());
            let mut scratch = Vec::new();
            prop_assert!(Document::open_with(&got, &dict, &mut scratch).is_ok());
        }
    }
}
