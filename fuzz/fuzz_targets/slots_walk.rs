//! Arbitrary bytes, opened validated (`Document::open`) and lazily
//! (`Document::open_lazy`, as the Python package does by default): every
//! map and array is read through `Map::slots` / `Array::slots` and must read
//! exactly what `Map::iter` / `Array::iter` and the `try_` accessors read.
//! Must never crash or hang.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::{Document, Value};

/// A comparable description that does not read a container's children.
fn desc(v: &Value<'_>) -> String {
    match v {
        Value::Map(m) => format!("map@{:?}#{}", m.offset(), m.len()),
        Value::Array(a) => format!("array@{:?}#{}", a.offset(), a.len()),
        Value::Vector(x) => format!("vector@{}#{}", x.offset(), x.len()),
        _ => format!("{v:?}"),
    }
}

fn desc_result(r: roving::Result<Option<Value<'_>>>) -> String {
    match r {
        Ok(Some(v)) => desc(&v),
        Ok(None) => "none".into(),
        Err(e) => format!("error {:?}", e.kind()),
    }
}

fn walk(root: Value<'_>) {
    let mut stack = vec![root];
    let mut budget = 20_000u32;
    while let Some(v) = stack.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        match v {
            Value::Array(a) => {
                let s = a.slots();
                assert_eq!(s.len(), a.len());
                for (i, y) in a.iter().enumerate() {
                    let x = s.value(i).expect("element in range");
                    assert_eq!(desc(&x), desc(&y));
                    stack.push(x);
                }
                assert!(s.value(s.len()).is_none());
                assert!(s.value(usize::MAX).is_none());
            }
            Value::Map(m) => {
                let s = m.slots();
                assert_eq!(s.len(), m.len());
                assert_eq!(s.shape_offset(), m.shape_offset());
                for (i, (k, y)) in m.iter().enumerate() {
                    assert_eq!(s.key(i), m.key_at(i));
                    assert_eq!(s.key(i).unwrap_or(""), k);
                    let x = s.value(i).expect("value in range");
                    assert_eq!(desc(&x), desc(&y));
                    assert_eq!(desc_result(s.try_value(i)), desc_result(m.try_value_at(i)));
                    if let Some(r) = s.key_record(i) {
                        assert!(s.key_record_is(i, r));
                        if let Some(k) = s.key(i) {
                            assert!(r.ends_with(k.as_bytes()));
                        }
                        if i > 0 && s.key_record_is(i - 1, r) {
                            assert_eq!(s.key_record(i - 1), Some(r));
                        }
                    }
                    stack.push(x);
                }
                let n = s.len();
                assert!(s.key(n).is_none() && s.key_record(n).is_none() && s.value(n).is_none());
                assert!(!s.key_record_is(usize::MAX, &[]));
            }
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = Document::open(data) {
        walk(doc.root());
    }
    if let Ok(doc) = Document::open_lazy(data) {
        walk(doc.root());
    }
});
