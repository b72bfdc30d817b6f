//! Small programs as a Rust service developer writes them from the crate
//! docs, one per use: typed documents through serde (borrowing `&str` and
//! `&[u8]`), reading single fields of a large document in place, building
//! a document by hand with a reused `Encoder`, and JSON in and out. Each
//! uses only the public API, the obvious way.

use std::collections::BTreeMap;

use roving::{Document, Encoder, KeyHandle, Timestamp, Value};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Event<'a> {
    id: u64,
    kind: &'a str,
    tags: Vec<&'a str>,
    #[serde(with = "serde_bytes")]
    payload: &'a [u8],
    score: Option<f64>,
    attrs: BTreeMap<&'a str, i32>,
    at: Timestamp,
    big: u128,
    action: Action,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Action {
    Click { x: i32, y: i32 },
    Scroll(i32),
    Leave,
}

fn event(i: u64) -> Event<'static> {
    Event {
        id: i,
        kind: if i % 2 == 0 { "click" } else { "view" },
        tags: vec!["a", "b"],
        payload: b"\x00\x01\xff",
        score: (i % 3 == 0).then_some(0.5),
        attrs: BTreeMap::from([("w", 3), ("h", 4)]),
        at: Timestamp::new(1_700_000_000 + i as i64, 0, None).unwrap(),
        big: u128::MAX - i as u128,
        action: match i % 3 {
            0 => Action::Click { x: 1, y: 2 },
            1 => Action::Scroll(-5),
            _ => Action::Leave,
        },
    }
}

/// (1) Store and read typed documents with serde, borrowing from the bytes.
#[test]
fn serde_round_trip_borrows() -> Result<(), Box<dyn std::error::Error>> {
    let events: Vec<Event> = (0..50).map(event).collect();
    let bytes = roving::to_vec(&events)?;
    let back: Vec<Event> = roving::from_slice(&bytes)?;
    assert_eq!(back, events);
    let base = bytes.as_ptr_range();
    assert!(
        base.contains(&back[0].kind.as_ptr()),
        "kind borrows from the bytes"
    );
    assert!(
        base.contains(&back[0].payload.as_ptr()),
        "payload borrows too"
    );

    // A wrong type is an error that says where, usable with `?`.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Wrong {
        id: String,
    }
    let err = roving::from_slice::<Vec<Wrong>>(&bytes).unwrap_err();
    assert_eq!(err.kind(), &roving::ErrorKind::TypeMismatch);
    assert_eq!(err.path(), Some("$[0].id"));
    assert!(err.offset().is_some());
    let boxed: Box<dyn std::error::Error + Send + Sync> = err.into();
    assert!(boxed.to_string().contains("$[0].id"), "{boxed}");
    Ok(())
}

/// (2) Read single fields of a big document in place.
#[test]
fn read_fields_in_place() -> Result<(), roving::Error> {
    let events: Vec<Event> = (0..1000).map(event).collect();
    let bytes = roving::to_vec(&events)?;
    let doc = Document::open(&bytes)?;

    // By path, from the end, and by a reusable key handle.
    assert!(doc.get_path("[123].kind")?.unwrap() == "view");
    assert!(doc.get_path("[-1].id")?.unwrap() == 999);
    assert!(doc.get_path("[3].attrs.w")?.unwrap() == 3);
    assert!(doc.get_path("[0].action.Click.y")?.unwrap() == 2);
    let kind = KeyHandle::new("kind");
    let records = doc.root().as_array().unwrap();
    let clicks = records
        .iter()
        .filter(|r| {
            r.as_map()
                .and_then(|m| m.get_with(&kind))
                .is_some_and(|k| k == "click")
        })
        .count();
    assert_eq!(clicks, 500);

    // Every kind of value, with its accessor.
    let r = records.get(9).unwrap();
    assert_eq!(r.get("id").and_then(|v| v.as_u64()), Some(9));
    assert_eq!(r.get("score").and_then(|v| v.as_f64()), Some(0.5));
    assert!(records.get(1).unwrap().get("score").unwrap().is_null());
    assert_eq!(
        r.get("payload").and_then(|v| v.as_bytes()),
        Some(&b"\x00\x01\xff"[..])
    );
    let at = r.get("at").and_then(|v| v.as_timestamp()).unwrap();
    assert_eq!(at.to_string(), "2023-11-14T22:13:29Z");
    assert_eq!(r.get("big").and_then(|v| v.as_u128()), Some(u128::MAX - 9));
    assert_eq!(r.get("big").and_then(|v| v.as_i64()), None);

    // Iterate a map's entries, and decode one part to a type.
    let attrs = r.get("attrs").and_then(|v| v.as_map()).unwrap();
    let mut sum = 0;
    for (k, v) in &attrs {
        assert!(k == "w" || k == "h");
        sum += v.as_i64().unwrap();
    }
    assert_eq!(sum, 7);
    let action: Action = roving::from_value(r.get("action").unwrap())?;
    assert_eq!(action, Action::Click { x: 1, y: 2 });

    // The same lookups on an untrusted buffer, without validating it all.
    let lazy = Document::open_lazy(&bytes)?;
    assert!(lazy.root().try_path("[500].kind")?.unwrap() == "click");
    Ok(())
}

/// (3) Build documents by hand, reusing one encoder.
#[test]
fn build_by_hand_with_a_reused_encoder() -> Result<(), roving::Error> {
    let mut enc = Encoder::new();
    let mut out = Vec::new();
    for i in 0..3i64 {
        enc.begin_map()?;
        enc.key("id")?;
        enc.i64(i)?;
        enc.key("when")?;
        enc.timestamp("2024-05-01T12:00:00.250+02:00".parse()?)?;
        enc.key("embedding")?;
        enc.vector(&[0.25f32, -1.0, 2.5])?;
        enc.key("labels")?;
        enc.begin_array()?;
        enc.str("x")?;
        enc.end_array()?;
        let labels = enc.mark().unwrap();
        enc.key("labels_again")?;
        enc.reuse(labels)?;
        enc.end_map()?;
        out.push(enc.finish_reset()?);
    }
    assert_eq!(out[0].len(), out[2].len());
    let doc = Document::open(&out[2])?;
    let root = doc.root();
    assert!(root.get("id").unwrap() == 2);
    let v = root.get("embedding").and_then(|v| v.as_vector()).unwrap();
    assert_eq!(v.to_vec::<f32>(), Some(vec![0.25, -1.0, 2.5]));
    assert_eq!(v.iter().len(), 3);
    assert!(root.get("labels").unwrap() == root.get("labels_again").unwrap());
    assert_eq!(
        roving::json::to_json(root)?,
        r#"{"id":2,"when":"2024-05-01T12:00:00.250+02:00","embedding":[0.25,-1.0,2.5],"labels":["x"],"labels_again":["x"]}"#
    );

    // Misuse is an error, and reset makes the encoder usable again.
    enc.begin_map()?;
    assert_eq!(
        enc.str("no key").unwrap_err().kind(),
        &roving::ErrorKind::EncoderState
    );
    enc.reset();
    enc.null()?;
    assert!(Document::open(&enc.finish_reset()?)?.root().is_null());
    Ok(())
}

/// (4) JSON in and out.
#[test]
fn json_in_and_out() -> Result<(), roving::Error> {
    let text = br#"{"name":"Ada","n":[1,2.5,-0.0,12345678901234567890123],"ok":true,"none":null}"#;
    let bytes = roving::json::from_json(text)?;
    let doc = Document::open(&bytes)?;
    assert_eq!(roving::json::to_json(doc.root())?.as_bytes(), text);
    let n = doc.get_path("n")?.unwrap();
    assert!(matches!(n.index(3), Some(Value::BigInt(_))));
    assert_eq!(
        roving::json::to_json_pretty(doc.get_path("n")?.unwrap(), 1)?,
        "[\n 1,\n 2.5,\n -0.0,\n 12345678901234567890123\n]"
    );
    // Typed decoding of JSON-born documents, and into serde_json values.
    // (serde_json::Value has no integers past 64 bits: decode around them.)
    let any: serde_json::Value = roving::from_value(doc.root().get("name").unwrap())?;
    assert_eq!(any, "Ada");
    let ok: bool = roving::from_value(doc.get_path("ok")?.unwrap())?;
    assert!(ok);
    // Errors of JSON text carry a line and a column.
    let err = roving::json::from_json(b"{\n  \"a\": tru\n}").unwrap_err();
    assert_eq!(err.kind(), &roving::ErrorKind::JsonSyntax);
    assert_eq!(err.line_col(), Some((2, 8)));
    Ok(())
}
