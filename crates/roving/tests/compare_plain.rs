//! A `Value` compares with plain Rust values, as `serde_json::Value`
//! does: `value == "Ada"`, `value == 3`, `value == 2.5`, `value == true`,
//! in both orders, so that tests and filters need no `as_*` unwrapping.

use roving::{Document, Value};

#[test]
fn values_compare_with_plain_values() {
    let bytes = roving::json::from_json(
        br#"{"name":"Ada","n":3,"neg":-2,"big":18446744073709551615,"x":2.5,"ok":true,"none":null}"#,
    )
    .unwrap();
    let doc = Document::open(&bytes).unwrap();
    let r = doc.root();
    let get = |k: &str| r.get(k).unwrap();

    assert!(get("name") == "Ada");
    assert!("Ada" == get("name"));
    assert!(get("name") == *"Ada");
    let ada: String = ["A", "da"].concat();
    assert!(get("name") == ada);
    assert!(ada == get("name"));
    assert!(get("name") != "Grace");
    assert!(get("n") != "3");

    assert!(get("n") == 3);
    assert!(get("n") == 3i64);
    assert!(get("n") == 3u8);
    assert!(get("n") == 3usize);
    assert!(3 == get("n"));
    assert!(get("neg") == -2);
    assert!(get("neg") != -2i64 as u64);
    assert!(get("big") == u64::MAX);
    assert!(get("big") != -1);
    assert!(get("n") != 4);
    assert!(get("name") != 3);

    // Floats compare as `as_f64` reads the value: integers too.
    assert!(get("x") == 2.5);
    assert!(get("x") == 2.5f32);
    assert!(2.5 == get("x"));
    assert!(get("n") == 3.0);
    assert!(get("x") != 2.0);

    assert!(get("ok") == true);
    assert!(false != get("ok"));
    assert!(get("none") != false);

    // A value of another kind is unequal to every plain value.
    let text: Value = get("name");
    assert!(text != 0 && text != 0.0 && text != false && text != "");
}

#[test]
fn array_elements_compare_in_filters() {
    let bytes = roving::json::from_json(br#"["a","b","a"]"#).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let arr = doc.root().as_array().unwrap();
    assert_eq!(arr.iter().filter(|v| *v == "a").count(), 2);
    assert!(arr.iter().any(|v| v == "b"));
}
