//! Where typed decoding errors point: a path to the value (`$.a[1].x`)
//! and the byte offset of the value in the document (its record, or its
//! slot for a value held in the slot), in `Display` too.

use serde::Deserialize;

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Outer {
    a: Vec<Inner>,
}

#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Inner {
    x: u8,
}

fn err_of<T: serde::de::DeserializeOwned + std::fmt::Debug>(
    json: &str,
) -> (Vec<u8>, roving::Error) {
    let bytes = roving::json::from_json(json.as_bytes()).unwrap();
    let err = roving::from_slice::<T>(&bytes).unwrap_err();
    (bytes, err)
}

#[test]
fn a_wrong_record_is_located_by_path_and_offset() {
    let (bytes, err) = err_of::<Outer>(r#"{"a":[{"x":1},{"x":"s"}]}"#);
    assert_eq!(err.path(), Some("$.a[1].x"));
    let at = err.offset().expect("an offset") as usize;
    // The short string record `"s"`.
    assert_eq!(bytes[at] & 0xC0, roving::format::TAG_SHORT_STR);
    assert_eq!(&bytes[at + 1..at + 1 + (bytes[at] & 0x3F) as usize], b"s");
    assert_eq!(
        err.to_string(),
        format!("invalid type: string \"s\", expected u8 at $.a[1].x (byte offset {at})")
    );
}

#[test]
fn a_wrong_value_in_a_slot_is_located_at_the_slot() {
    let (bytes, err) = err_of::<Outer>(r#"{"a":[{"x":1},{"x":true}]}"#);
    assert_eq!(err.path(), Some("$.a[1].x"));
    let at = err.offset().expect("an offset") as usize;
    assert!(at < bytes.len());
    // An inline `true` slot: the special immediate `SPECIAL_TRUE << 2 | 3`.
    let special_true = roving::format::SPECIAL_TRUE << 2 | roving::format::SLOT_SPECIAL;
    assert_eq!(u64::from(bytes[at]), special_true);
    // A missing field is the map's error: located at the map's record.
    let (bytes, err) = err_of::<Outer>(r#"{"a":[{"x":1},{"y":2}]}"#);
    assert_eq!(err.path(), Some("$.a[1]"));
    let at = err.offset().expect("an offset") as usize;
    assert_eq!(bytes[at] & !3, roving::format::TAG_MAP);
}

#[test]
fn vector_elements_have_a_path() {
    let mut enc = roving::Encoder::new();
    enc.begin_map().unwrap();
    enc.key("v").unwrap();
    enc.vector(&[1u16, 2, 300]).unwrap();
    enc.end_map().unwrap();
    let bytes = enc.finish().unwrap();
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct V {
        v: Vec<u8>,
    }
    let err = roving::from_slice::<V>(&bytes).unwrap_err();
    assert_eq!(err.path(), Some("$.v[2]"));
}

#[test]
fn errors_inside_a_variant_have_the_variant_in_their_path() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum E {
        U,
        N(u8),
        T(u8, u8),
        S { x: u8 },
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Holder {
        e: Vec<E>,
    }
    for (json, path) in [
        (r#"{"e":[{"N":1},{"N":"s"}]}"#, "$.e[1].N"),
        (r#"{"e":[{"T":[1,"s"]}]}"#, "$.e[0].T[1]"),
        (r#"{"e":[{"S":{"x":"s"}}]}"#, "$.e[0].S.x"),
        (r#"{"e":[{"S":{"y":1}}]}"#, "$.e[0].S"),
        (r#"{"e":[{"U":1}]}"#, "$.e[0].U"),
    ] {
        let (_, err) = err_of::<Holder>(json);
        assert_eq!(err.path(), Some(path), "{json}: {err}");
    }
    // An unknown variant is the error of the enum's value itself.
    let (_, err) = err_of::<Holder>(r#"{"e":[{"Z":1}]}"#);
    assert_eq!(err.path(), Some("$.e[0]"), "{err}");
}
