//! Typed decoding of structs: maps whose keys spell the struct's fields in
//! order take a fast path; every other map goes key by key. Both must give
//! what serde_json gives for the same JSON (same values, same successes and
//! failures), whatever the key order, extra or missing keys, renames,
//! aliases, defaults, `deny_unknown_fields`, `flatten` or `skip`.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Deserialize;

/// Decodes `json` with serde_json and, through a roving document, with
/// roving; the two must agree.
fn same<T: DeserializeOwned + PartialEq + Debug>(json: &str) -> Option<T> {
    let want = serde_json::from_str::<T>(json);
    let doc = roving::json::from_json(json.as_bytes()).unwrap();
    let got = roving::from_slice::<T>(&doc);
    match (&want, &got) {
        (Ok(w), Ok(g)) => assert_eq!(g, w, "{json}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{json}: serde_json {want:?}, roving {got:?}"),
    }
    got.ok()
}

#[derive(Deserialize, Debug, PartialEq)]
struct Plain {
    a: u32,
    b: String,
    c: Option<bool>,
}

#[test]
fn plain_struct_any_key_order() {
    let p = same::<Plain>(r#"{"a":1,"b":"x","c":true}"#).unwrap();
    assert_eq!(
        p,
        Plain {
            a: 1,
            b: "x".into(),
            c: Some(true)
        }
    );
    for json in [
        r#"{"b":"x","a":1,"c":true}"#,
        r#"{"c":null,"b":"x","a":1}"#,
        r#"{"a":1,"b":"x"}"#,
        r#"{"a":1,"b":"x","c":true,"d":[1,2]}"#,
        r#"{"z":{},"a":1,"b":"x","c":false}"#,
        r#"{"a":1,"c":true}"#,
        r#"{}"#,
        r#"{"a":"1","b":"x","c":true}"#,
        r#"{"a":-1,"b":"x","c":true}"#,
        r#"{"a":4294967296,"b":"x","c":true}"#,
        r#"[1,"x",true]"#,
        r#"[1,"x"]"#,
        r#""a""#,
    ] {
        same::<Plain>(json);
    }
}

#[test]
fn many_maps_of_one_shape_and_of_others() {
    // The shape check is cached: the same shape many times, interleaved
    // with maps of other shapes that must not reuse its verdict.
    let mut items = Vec::new();
    for i in 0..50 {
        items.push(format!(r#"{{"a":{i},"b":"s{i}","c":null}}"#));
        if i % 3 == 0 {
            items.push(format!(r#"{{"b":"r{i}","a":{i}}}"#));
        }
        if i % 7 == 0 {
            items.push(format!(r#"{{"a":{i},"b":"e{i}","c":true,"extra":{i}}}"#));
        }
    }
    let json = format!("[{}]", items.join(","));
    let v = same::<Vec<Plain>>(&json).unwrap();
    assert_eq!(v.len(), items.len());
    // Nested, and as a map value.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Outer {
        one: Plain,
        list: Vec<Plain>,
        by: BTreeMap<String, Plain>,
    }
    let json = format!(
        r#"{{"one":{},"list":{json},"by":{{"k":{},"l":{}}}}}"#,
        items[0], items[1], items[2]
    );
    same::<Outer>(&json).unwrap();
}

#[test]
fn two_structs_over_one_shape() {
    // Maps of one shape decoded as two structs whose field lists differ in
    // order: only the one whose fields match the shape takes the fast path.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ab {
        a: u32,
        b: u32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Ba {
        b: u32,
        a: u32,
    }
    let json = r#"[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6}]"#;
    let v = same::<(Ab, Ba, Ab)>(json).unwrap();
    assert_eq!(v.1, Ba { b: 4, a: 3 });
    same::<(Ba, Ab, Ba)>(json).unwrap();
}

#[test]
fn renamed_fields() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Renamed {
        #[serde(rename = "_id")]
        id: String,
        #[serde(rename = "type")]
        kind: String,
        n: i64,
    }
    same::<Renamed>(r#"{"_id":"x","type":"t","n":-5}"#).unwrap();
    same::<Renamed>(r#"{"type":"t","_id":"x","n":-5}"#).unwrap();
    same::<Renamed>(r#"{"id":"x","kind":"t","n":-5}"#);
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Camel {
        is_active: bool,
        eye_color: String,
    }
    same::<Camel>(r#"{"isActive":true,"eyeColor":"blue"}"#).unwrap();
    same::<Camel>(r#"{"is_active":true,"eye_color":"blue"}"#);
}

#[test]
fn defaults_and_missing_optional_keys() {
    fn seven() -> u32 {
        7
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Defaults {
        a: u32,
        #[serde(default)]
        b: Vec<u32>,
        #[serde(default = "seven")]
        c: u32,
        d: Option<String>,
    }
    for json in [
        r#"{"a":1,"b":[2],"c":3,"d":"x"}"#,
        r#"{"a":1,"b":[2],"c":3}"#,
        r#"{"a":1}"#,
        r#"{"c":3,"a":1}"#,
        r#"{"b":[],"c":3,"d":null}"#,
    ] {
        same::<Defaults>(json);
    }
    #[derive(Deserialize, Debug, PartialEq, Default)]
    #[serde(default)]
    struct AllDefault {
        x: u32,
        y: String,
    }
    for json in [
        r#"{"x":1,"y":"a"}"#,
        r#"{"y":"a"}"#,
        r#"{}"#,
        r#"{"x":1,"y":"a","q":0}"#,
    ] {
        same::<AllDefault>(json).unwrap();
    }
}

#[test]
fn deny_unknown_fields() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        a: u32,
        b: u32,
    }
    assert!(same::<Strict>(r#"{"a":1,"b":2}"#).is_some());
    assert!(same::<Strict>(r#"{"b":2,"a":1}"#).is_some());
    assert!(same::<Strict>(r#"{"a":1,"b":2,"c":3}"#).is_none());
    assert!(same::<Strict>(r#"{"a":1}"#).is_none());
}

#[test]
fn aliases() {
    // FIELDS lists every accepted name ("a", "b", "c" here), so a map with
    // exactly those keys matches FIELDS although "b" is another name of "a":
    // it must still be a duplicate field, as key by key.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Aliased {
        #[serde(alias = "b")]
        a: u32,
        c: u32,
    }
    assert!(same::<Aliased>(r#"{"a":1,"c":2}"#).is_some());
    assert!(same::<Aliased>(r#"{"b":1,"c":2}"#).is_some());
    assert!(same::<Aliased>(r#"{"a":1,"b":2,"c":3}"#).is_none());
    assert!(same::<Vec<Aliased>>(r#"[{"a":1,"b":2,"c":3},{"a":1,"b":2,"c":3}]"#).is_none());
}

#[test]
fn flatten_and_skip() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Flat {
        a: u32,
        #[serde(flatten)]
        rest: BTreeMap<String, u32>,
    }
    same::<Flat>(r#"{"a":1,"x":2,"y":3}"#).unwrap();
    same::<Flat>(r#"{"a":1}"#).unwrap();
    #[derive(Deserialize, Debug, PartialEq)]
    struct Skipped {
        a: u32,
        #[serde(skip)]
        s: u32,
        b: u32,
    }
    same::<Skipped>(r#"{"a":1,"b":2}"#).unwrap();
    same::<Skipped>(r#"{"a":1,"s":5,"b":2}"#).unwrap();
}

#[test]
fn struct_variants_and_std_structs() {
    #[derive(Deserialize, Debug, PartialEq)]
    enum E {
        V { x: u32, y: String },
        W(u8),
    }
    same::<Vec<E>>(r#"[{"V":{"x":1,"y":"a"}},{"V":{"y":"b","x":2}},{"W":3}]"#).unwrap();
    same::<E>(r#"{"V":{"x":1}}"#);
    // std's hand-written struct impls (fields "secs", "nanos").
    let d = same::<Duration>(r#"{"secs":3,"nanos":5}"#).unwrap();
    assert_eq!(d, Duration::new(3, 5));
    same::<Duration>(r#"{"nanos":5,"secs":3}"#).unwrap();
    same::<std::ops::Range<u32>>(r#"{"start":1,"end":4}"#).unwrap();
}

#[test]
fn errors_name_the_field_on_both_paths() {
    for json in [
        r#"[{"a":1,"b":"x","c":null},{"a":1,"b":2,"c":null}]"#,
        r#"[{"a":1,"b":"x","c":null},{"c":null,"b":2,"a":1}]"#,
    ] {
        let doc = roving::json::from_json(json.as_bytes()).unwrap();
        let e = roving::from_slice::<Vec<Plain>>(&doc).unwrap_err();
        assert_eq!(e.path(), Some("$[1].b"), "{json}: {e}");
    }
}

#[test]
fn many_shapes_collide_in_the_cache() {
    // More shapes than the cache has entries, each seen several times.
    #[derive(Deserialize, Debug, PartialEq, Default)]
    #[serde(default)]
    struct Wide {
        k0: u32,
        k1: u32,
        k2: u32,
        k3: u32,
        k4: u32,
        k5: u32,
    }
    let mut items = Vec::new();
    for round in 0..3 {
        for mask in 0u32..64 {
            let keys: Vec<String> = (0..6)
                .filter(|b| mask & (1 << b) != 0)
                .map(|b| format!(r#""k{b}":{}"#, b + round))
                .collect();
            items.push(format!("{{{}}}", keys.join(",")));
        }
    }
    let json = format!("[{}]", items.join(","));
    assert_eq!(same::<Vec<Wide>>(&json).unwrap().len(), 192);
}

#[test]
fn borrowed_strs_from_the_fast_path() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct R<'a> {
        #[serde(borrow)]
        name: &'a str,
        tags: Vec<&'a str>,
    }
    let doc =
        roving::json::from_json(br#"[{"name":"ab","tags":["x","y"]},{"name":"cd","tags":[]}]"#)
            .unwrap();
    let v: Vec<R<'_>> = roving::from_slice(&doc).unwrap();
    assert_eq!(v[1].name, "cd");
    assert_eq!(v[0].tags, ["x", "y"]);
    let range = doc.as_ptr() as usize..doc.as_ptr() as usize + doc.len();
    assert!(range.contains(&(v[0].name.as_ptr() as usize)));
}

/// Integer fields read from integer records (`i8` to `i64`, the values an
/// inline slot cannot hold) as serde_json reads the same numbers, into
/// every integer type: the value, or an error when it does not fit.
mod integer_records {
    use super::same;
    use proptest::prelude::*;
    use serde::Deserialize;

    /// A string beside the integer keeps the map's slots narrow, so that
    /// a wide `v` is written as a record.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Field<T> {
        s: String,
        v: T,
    }

    fn check(v: i64) {
        let json = format!(r#"{{"s":"x","v":{v}}}"#);
        same::<Field<i8>>(&json);
        same::<Field<i16>>(&json);
        same::<Field<i32>>(&json);
        same::<Field<i64>>(&json);
        same::<Field<u8>>(&json);
        same::<Field<u16>>(&json);
        same::<Field<u32>>(&json);
        same::<Field<u64>>(&json);
        same::<Field<f64>>(&json);
        same::<Field<String>>(&json);
    }

    proptest! {
        #[test]
        fn any_i64(v in any::<i64>()) {
            check(v);
        }

        #[test]
        fn each_record_width(shift in 0u32..64, neg in any::<bool>()) {
            let v = 1i64.wrapping_shl(shift);
            let v = if neg { v.wrapping_neg() } else { v };
            check(v);
            check(v.wrapping_sub(1));
        }
    }
}
