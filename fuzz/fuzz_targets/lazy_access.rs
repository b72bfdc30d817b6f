//! Arbitrary bytes opened lazily (`Document::open_lazy`, no validation):
//! every accessor -- plain and `try_`, by index, by key, by handle, by
//! path, vectors, big integers, timestamps -- and the whole-value
//! operations (`==`, JSON, serde, copying) must never crash or hang. When
//! the bytes also validate, the lazy reads must be exactly the validated
//! ones: no `try_` accessor fails, and every key is found.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::read::PathSegment;
use roving::{Document, Encoder, KeyHandle, Value};

#[path = "common/same.rs"]
mod same_value;
use same_value::same;

/// A path step in the syntax of `Value::path`: a JSON string for keys.
fn key_step(k: &str) -> String {
    format!("[{}]", serde_json::to_string(k).expect("a string serializes"))
}

/// Reads every value reachable from `root` (at most `budget` of them)
/// through every accessor; with `valid`, checks that the document reads
/// as a validated one must. Returns the path of each value visited, with
/// the value.
fn walk<'a>(root: Value<'a>, valid: bool, handles: &[KeyHandle]) -> Vec<(String, Value<'a>)> {
    let mut seen = Vec::new();
    let mut stack = vec![(String::new(), root)];
    let mut budget = 2_000u32;
    while let Some((path, v)) = stack.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        let _ = (v.as_str(), v.as_i64(), v.as_u64(), v.as_f64(), v.as_bool());
        let _ = (v.as_bytes(), v.as_timestamp(), v.as_ext(), v.type_name());
        let _ = v.as_bigint();
        let _ = v.is_lazy();
        match v {
            Value::Array(a) => {
                let n = a.len();
                let fwd: Vec<_> = a.iter().collect();
                let mut back: Vec<_> = a.iter().rev().collect();
                back.reverse();
                assert_eq!(fwd.len(), n);
                assert_eq!(back.len(), n);
                for (i, x) in fwd.iter().enumerate() {
                    assert!(same(x, &back[i]));
                    let got = a.get(i).expect("in range");
                    assert!(same(x, &got));
                    match a.try_get(i) {
                        Ok(Some(y)) => assert!(same(x, &y)),
                        Ok(None) => panic!("try_get({i}) absent below len {n}"),
                        Err(e) => assert!(!valid, "try_get on a valid document: {e}"),
                    }
                    if i < 64 {
                        stack.push((format!("{path}[{i}]"), *x));
                    }
                }
                assert!(a.get(n).is_none() && a.get(usize::MAX).is_none());
                assert!(matches!(a.try_get(usize::MAX), Ok(None) | Err(_)));
                if n > 0 {
                    let last = v.path("[-1]").expect("a valid path");
                    assert!(same(&last.expect("last element"), &fwd[n - 1]));
                }
            }
            Value::Map(m) => {
                let n = m.len();
                let entries: Vec<_> = m.iter().collect();
                assert_eq!(entries.len(), n);
                assert_eq!(m.keys().count(), n);
                assert_eq!(m.values().count(), n);
                for (i, (k, x)) in entries.iter().enumerate() {
                    if let Some(t) = m.key_at(i) {
                        assert_eq!(t, *k);
                    }
                    assert!(same(x, &m.value_at(i).expect("in range")));
                    match m.try_key_at(i) {
                        Ok(Some(t)) => assert_eq!(t, *k),
                        Ok(None) => panic!("try_key_at({i}) absent below len {n}"),
                        Err(e) => assert!(!valid, "try_key_at on a valid document: {e}"),
                    }
                    match m.try_value_at(i) {
                        Ok(Some(y)) => assert!(same(x, &y)),
                        Ok(None) => panic!("try_value_at({i}) absent below len {n}"),
                        Err(e) => assert!(!valid, "try_value_at on a valid document: {e}"),
                    }
                    // Lookups by key: in a valid document, every key is
                    // found, at its position (keys are distinct).
                    let by_key = m.get(k);
                    let by_handle = m.get_with(&KeyHandle::new(k));
                    let pos = m.position(k);
                    if valid {
                        assert_eq!(pos, Some(i), "position of {k:?}");
                        assert!(same(x, &by_key.expect("key found")), "get({k:?})");
                        assert!(same(x, &by_handle.expect("key found")), "get_with({k:?})");
                        let t = m.try_get(k).expect("valid").expect("key found");
                        assert!(same(x, &t));
                    } else {
                        let _ = m.try_get(k);
                        let _ = m.try_get_with(&KeyHandle::new(k));
                    }
                    if i < 64 {
                        stack.push((format!("{path}{}", key_step(k)), *x));
                    }
                }
                assert!(m.value_at(n).is_none() && m.key_at(n).is_none());
                for h in handles {
                    // A handle used on many maps must only ever return its
                    // own key's value.
                    let a = m.get_with(h);
                    let b = m.get(h.key());
                    if valid {
                        assert_eq!(a.is_some(), b.is_some(), "handle vs get");
                        if let (Some(a), Some(b)) = (a, b) {
                            assert!(same(&a, &b));
                        }
                    }
                    let _ = m.try_get_with(h);
                    let _ = m.try_get(h.key());
                }
            }
            Value::Vector(x) => {
                let n = x.len();
                assert_eq!(x.raw().len(), n * x.elem_type().size());
                let _ = (x.to_vec::<u8>(), x.to_vec::<f32>(), x.to_vec::<u64>());
                let _ = (x.as_slice::<i16>(), x.as_slice::<f64>());
                for i in [0, 1, n / 2, n.saturating_sub(1), n, usize::MAX] {
                    assert_eq!(x.get(i).is_some(), i < n);
                    let _ = x.get_f64(i);
                }
            }
            Value::BigInt(b) => {
                if b.magnitude.len() <= 64 {
                    let _ = b.to_decimal();
                }
            }
            Value::Timestamp(t) => {
                let text = t.to_rfc3339();
                let back: roving::Timestamp = text.parse().expect("RFC 3339 reads back");
                assert_eq!(back, t, "{text}");
            }
            _ => {}
        }
        seen.push((path, v));
    }
    seen
}

fuzz_target!(|data: &[u8]| {
    let Ok(lazy) = Document::open_lazy(data) else {
        assert!(Document::open(data).is_err(), "open_lazy refuses what open accepts");
        return;
    };
    let valid = Document::open(data).ok();
    let handles = [KeyHandle::new("a"), KeyHandle::new("name"), KeyHandle::new("")];
    match lazy.try_root() {
        Ok(r) => assert!(same(&r, &lazy.root())),
        Err(e) => assert!(valid.is_none(), "try_root on a valid document: {e}"),
    }
    let lazy_seen = walk(lazy.root(), valid.is_some(), &handles);
    // Paths to the values walked lead to them (a lazily read key may be
    // missed by an incomplete index; in a valid document it may not).
    for (p, v) in lazy_seen.iter().take(64) {
        let segs = PathSegment::parse(p).expect("paths made here parse");
        match lazy.root().try_path_segments(&segs) {
            Ok(Some(x)) => assert!(valid.is_none() || same(&x, v), "path {p}"),
            Ok(None) | Err(_) => assert!(valid.is_none(), "path {p} lost"),
        }
        let _ = lazy.get_path(p);
    }
    // Whole-value operations validate a lazy document first.
    let root = lazy.root();
    let json = roving::json::to_json(root);
    match &valid {
        Some(v) => assert_eq!(json.ok(), roving::json::to_json(v.root()).ok(), "to_json"),
        None if root.is_lazy() => assert!(json.is_err(), "to_json of an invalid document"),
        None => {}
    }
    let eq = root == root;
    if root.is_lazy() {
        assert_eq!(eq, valid.is_some(), "a lazy value equals itself iff it validates");
    }
    let copied = {
        let mut e = Encoder::new();
        e.write_value(root).and_then(|()| e.finish())
    };
    if let Ok(bytes) = &copied {
        let d = Document::open(bytes).expect("a copy validates");
        if let Some(v) = &valid {
            assert!(d.root() == v.root(), "the copy of a lazy value");
        }
    } else if let Some(v) = &valid {
        // Only the depth limit stops a copy of a valid document.
        let mut e = Encoder::new();
        assert!(e.write_value(v.root()).is_err(), "a lazy copy failed, a validated one not");
    }
    let _ = roving::from_value::<serde_json::Value>(root);
    // A valid document reads the same lazily and validated.
    if let Some(v) = &valid {
        let seen = walk(v.root(), true, &handles);
        assert_eq!(seen.len(), lazy_seen.len());
        for ((p, a), (q, b)) in seen.iter().zip(&lazy_seen) {
            assert_eq!(p, q);
            assert!(same(a, b), "{p}: {a:?} != {b:?}");
        }
        let validated = lazy.validated().expect("validates");
        assert!(!validated.is_lazy());
        assert!(same(&validated.root(), &v.root()));
    } else {
        assert!(lazy.validated().is_err());
    }
});
