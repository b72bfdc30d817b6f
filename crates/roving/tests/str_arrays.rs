//! String array records (`22`, format version 2): the encoder writes them
//! for arrays of strings where the record is smaller than slots and the
//! strings' own records, and every reader reads them as arrays of strings.

mod common;

use common::record_kinds;
use roving::walk::{self, Kind};
use roving::{Document, Encoder, Value};

fn strings(n: usize, prefix: &str) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn encode(items: &[String]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for s in items {
        e.str(s).unwrap();
    }
    e.end_array().unwrap();
    e.finish().unwrap()
}

/// An array of new distinct strings is one record, in a version 2
/// document; it reads back element by element, by iteration and as JSON.
#[test]
fn distinct_new_strings_are_packed() {
    for n in [8usize, 16, 17, 100, 1000] {
        let items = strings(n, "name ");
        let bytes = encode(&items);
        assert_eq!(bytes[2], 2, "{n}: version 2");
        assert_eq!(record_kinds(&bytes), [Kind::StrArray, Kind::Root], "{n}");
        let doc = Document::open(&bytes).unwrap();
        let a = doc.root().as_array().unwrap();
        assert_eq!(a.len(), n);
        for (i, s) in items.iter().enumerate() {
            assert_eq!(a.get(i).and_then(|v| v.as_str()), Some(s.as_str()));
            assert_eq!(
                a.slots().value(i).and_then(|v| v.as_str()),
                Some(s.as_str())
            );
        }
        assert!(a.get(n).is_none());
        let got: Vec<&str> = a.iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(got, items);
        let back: Vec<&str> = a.iter().rev().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(back.len(), n);
        let json = roving::json::to_json(doc.root()).unwrap();
        assert_eq!(roving::json::from_json(json.as_bytes()).unwrap(), bytes);
        assert_eq!(
            doc.get_path(&format!("[{}]", n - 1))
                .unwrap()
                .and_then(|v| v.as_str()),
            Some(items[n - 1].as_str())
        );
        // Equal to the same array written as slots (from another encoder).
        let lazy = Document::open_lazy(&bytes).unwrap();
        assert_eq!(lazy.root(), doc.root());
        for (i, s) in items.iter().enumerate() {
            assert_eq!(
                lazy.root().try_index(i).unwrap().and_then(|v| v.as_str()),
                Some(s.as_str())
            );
        }
    }
}

/// Arrays whose string array record would not be smaller keep slots
/// (version 1): fewer than 8 strings, an empty string, strings the
/// document holds already, strings that recur within the array.
#[test]
fn other_arrays_keep_slots() {
    let words = |s: &str| -> Vec<String> { s.split(' ').map(String::from).collect() };
    let cases: Vec<Vec<String>> = vec![
        strings(7, "x"),
        words("a  b c d e f g h"),
        words("ab cd ab cd ab cd ab cd ab cd ab cd"),
        words("one two three one two three one two three one two three"),
    ];
    for items in cases {
        let bytes = encode(&items);
        assert_eq!(bytes[2], 1, "{items:?}");
        assert!(!record_kinds(&bytes).contains(&Kind::StrArray));
        let doc = Document::open(&bytes).unwrap();
        let back: Vec<String> = roving::from_slice(&bytes).unwrap();
        assert_eq!(back, items);
        assert_eq!(doc.root().as_array().unwrap().len(), items.len());
    }
    // Strings all written before the array: it refers to them.
    let items = strings(9, "s");
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for s in &items {
        e.str(s).unwrap();
    }
    e.begin_array().unwrap();
    for s in &items {
        e.str(s).unwrap();
    }
    e.end_array().unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    assert_eq!(bytes[2], 1);
    let strs = record_kinds(&bytes)
        .iter()
        .filter(|&&k| k == Kind::Str)
        .count();
    assert_eq!(strs, 9);
}

/// An array of strings that recur in it, or that the document holds
/// already, is one string array record too when that is smaller than its
/// slots and the records it would write (each such string's bytes are then
/// in the record again); it reads back as it was written.
#[test]
fn arrays_with_some_repeats_are_packed() {
    let words = |s: &str| -> Vec<String> { s.split(' ').map(String::from).collect() };
    // One repeat among distinct strings: the slot form writes 8 records
    // of 2 bytes and 9 slots (27 bytes), the record is 23.
    let mut many = strings(1000, "word ");
    many.push("word 17".into());
    many.insert(500, "word 3".into());
    for items in [words("a b a c d e f g h"), many] {
        let bytes = encode(&items);
        assert_eq!(bytes[2], 2, "{items:?}");
        assert_eq!(record_kinds(&bytes), [Kind::StrArray, Kind::Root]);
        let back: Vec<String> = roving::from_slice(&bytes).unwrap();
        assert_eq!(back, items);
        // The same bytes in one call, through serde and from JSON.
        let refs: Vec<&str> = items.iter().map(String::as_str).collect();
        let mut e = Encoder::new();
        e.array_str(&refs).unwrap();
        assert_eq!(e.finish().unwrap(), bytes);
        assert_eq!(roving::to_vec(&items).unwrap(), bytes);
        let json = serde_json::to_string(&items).unwrap();
        assert_eq!(roving::json::from_json(json.as_bytes()).unwrap(), bytes);
    }
    // A string written before the array stays in its record (the map's
    // other value still refers to it), and its bytes are in the array too.
    let items = strings(9, "s");
    for one_call in [false, true] {
        let mut e = Encoder::new();
        e.begin_map().unwrap();
        e.key("first").unwrap();
        e.str("s1").unwrap();
        e.key("all").unwrap();
        if one_call {
            let refs: Vec<&str> = items.iter().map(String::as_str).collect();
            e.array_str(&refs).unwrap();
        } else {
            e.begin_array().unwrap();
            for s in &items {
                e.str(s).unwrap();
            }
            e.end_array().unwrap();
        }
        e.key("again").unwrap();
        e.str("s1").unwrap();
        e.end_map().unwrap();
        let bytes = e.finish().unwrap();
        assert_eq!(bytes[2], 2);
        let doc = Document::open(&bytes).unwrap();
        assert_eq!(
            roving::json::to_json(doc.root()).unwrap(),
            r#"{"first":"s1","all":["s0","s1","s2","s3","s4","s5","s6","s7","s8"],"again":"s1"}"#
        );
        // "first", "all", "again" (the keys) and "s1", once.
        let strs = record_kinds(&bytes)
            .iter()
            .filter(|&&k| k == Kind::Str)
            .count();
        assert_eq!(strs, 4, "one_call: {one_call}");
    }
}

/// A string of a packed array written again later gets a record of its
/// own (the packed strings are not in the string table any more); one
/// written before and after stays shared.
#[test]
fn later_equal_strings_get_their_own_record() {
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    e.key("tags").unwrap();
    e.begin_array().unwrap();
    for s in strings(8, "tag") {
        e.str(&s).unwrap();
    }
    e.end_array().unwrap();
    e.key("tag3").unwrap();
    e.str("tag5").unwrap();
    e.key("again").unwrap();
    e.str("tag5").unwrap();
    e.end_map().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(
        roving::json::to_json(doc.root()).unwrap(),
        r#"{"tags":["tag0","tag1","tag2","tag3","tag4","tag5","tag6","tag7"],"tag3":"tag5","again":"tag5"}"#
    );
    let strs = walk::records(&doc)
        .unwrap()
        .filter(|r| r.as_ref().unwrap().kind() == Kind::Str)
        .count();
    // "tags", "tag3" (key), "tag5" (once), "again".
    assert_eq!(strs, 4);
}

/// A mark taken of a string inside an array keeps the array in slots, so
/// that reusing the mark later refers to a record that is still there.
#[test]
fn marked_strings_stay() {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.begin_array().unwrap();
    let mut mark = None;
    for (i, s) in strings(8, "m").iter().enumerate() {
        e.str(s).unwrap();
        if i == 2 {
            mark = e.mark();
        }
    }
    e.end_array().unwrap();
    e.reuse(mark.unwrap()).unwrap();
    // A mark of the packed array itself is fine.
    e.begin_array().unwrap();
    for s in strings(8, "p") {
        e.str(&s).unwrap();
    }
    let packed = e.end_array().unwrap();
    e.reuse(packed).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(
        roving::json::to_json(doc.root()).unwrap(),
        r#"[["m0","m1","m2","m3","m4","m5","m6","m7"],"m2",["p0","p1","p2","p3","p4","p5","p6","p7"],["p0","p1","p2","p3","p4","p5","p6","p7"]]"#
    );
    let k = record_kinds(&bytes);
    assert_eq!(k.iter().filter(|&&k| k == Kind::StrArray).count(), 1);
    let root = doc.root();
    let (a, b) = (root.index(2).unwrap(), root.index(3).unwrap());
    assert_eq!(
        a.as_array().unwrap().offset(),
        b.as_array().unwrap().offset()
    );
}

/// Copying a document with string arrays gives the same bytes.
#[test]
fn copies_are_identical() {
    let json = r#"{"a":["one","two","three","four","five","six","seven","eight"],"b":[["x1","x2","x3","x4","x5","x6","x7","x8","x9"],"one"],"c":["é","ü","日本","🎉","","a","b","c"]}"#;
    let bytes = roving::json::from_json(json.as_bytes()).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let mut e = Encoder::new();
    e.write_value(doc.root()).unwrap();
    assert_eq!(e.finish().unwrap(), bytes);
    assert_eq!(roving::json::to_json(doc.root()).unwrap(), json);
}

/// Values of a string array compare equal to the same strings in slots.
#[test]
fn equal_to_slot_arrays() {
    let items = strings(20, "e");
    let packed = encode(&items);
    // The same strings written before the array: written as slots.
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for s in &items {
        e.str(s).unwrap();
    }
    e.begin_array().unwrap();
    for s in &items {
        e.str(s).unwrap();
    }
    e.end_array().unwrap();
    e.end_array().unwrap();
    let slots = e.finish().unwrap();
    let (d1, d2) = (
        Document::open(&packed).unwrap(),
        Document::open(&slots).unwrap(),
    );
    assert!(!record_kinds(&slots).contains(&Kind::StrArray));
    let inner = d2.root().index(20).unwrap();
    assert_eq!(d1.root(), inner);
    assert!(matches!(d1.root(), Value::Array(_)));
    assert_ne!(d1.root(), d2.root());
}

/// serde reads a string array as a sequence of strings, borrowed or owned.
#[test]
fn serde_reads_string_arrays() {
    let items = strings(40, "serde ");
    let bytes = roving::to_vec(&items).unwrap();
    assert_eq!(bytes[2], 2);
    assert_eq!(bytes, encode(&items));
    let owned: Vec<String> = roving::from_slice(&bytes).unwrap();
    assert_eq!(owned, items);
    let borrowed: Vec<&str> = roving::from_slice(&bytes).unwrap();
    assert_eq!(borrowed, items);
    // A struct of a string array and the error path of a wrong element type.
    #[derive(serde::Deserialize, Debug)]
    struct Tags<'a> {
        #[serde(borrow)]
        tags: Vec<&'a str>,
    }
    let json = br#"{"tags":["a","b","c","d","e","f","g","h"]}"#;
    let bytes = roving::json::from_json(json).unwrap();
    assert_eq!(bytes[2], 2);
    let t: Tags<'_> = roving::from_slice(&bytes).unwrap();
    assert_eq!(t.tags, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    let err = roving::from_slice::<Vec<u32>>(&encode(&items)).unwrap_err();
    assert!(err.to_string().contains("[0]"), "{err}");
    // Too few elements for a tuple: the length error.
    assert!(roving::from_slice::<(String, String)>(&encode(&items)).is_err());
}
