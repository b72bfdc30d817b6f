//! Arbitrary bytes, opened validated (`Document::open`) and lazily
//! (`Document::open_lazy`, as the Python package does by default): every
//! map and array is read through `Map::slots` / `Array::slots` and must read
//! exactly what `Map::iter` / `Array::iter` and the `try_` accessors read.
//! Must never crash or hang.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::{Document, Value};

#[path = "common/same.rs"]
mod same_value;
use same_value::same;

/// Whether two fallible reads agree: the same value, both absent, or
/// errors of the same kind.
fn same_result(x: roving::Result<Option<Value<'_>>>, y: roving::Result<Option<Value<'_>>>) -> bool {
    match (x, y) {
        (Ok(Some(a)), Ok(Some(b))) => same(&a, &b),
        (Ok(None), Ok(None)) => true,
        (Err(a), Err(b)) => a.kind() == b.kind(),
        _ => false,
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
                    assert!(same(&x, &y), "{x:?} != {y:?}");
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
                    assert!(same(&x, &y), "{x:?} != {y:?}");
                    assert!(same_result(s.try_value(i), m.try_value_at(i)));
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
