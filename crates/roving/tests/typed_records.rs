//! Typed records (an event log) as a Rust service developer writes them
//! from the crate docs: through serde, borrowing `&str` and `&[u8]` from
//! the bytes, with errors that say where; then single fields of a large
//! document of them read in place (by path, by key handle, each kind of
//! value with its accessor), validated or lazily.

use std::collections::BTreeMap;

use roving::{Document, KeyHandle, Timestamp};
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
        at: Timestamp::new(1_700_000_000 + i as i64, 0, Some(0)).unwrap(),
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
