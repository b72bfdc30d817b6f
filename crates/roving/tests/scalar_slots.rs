//! `layout::scalar_slot`, `array_record_parts` and `map_record_parts`, the
//! fast path of decoders that build other objects from whole documents:
//! on every container of encoded documents they agree with the reader,
//! and on any bytes they return without panicking.

use proptest::prelude::*;
use roving::layout::{array_record_parts, map_record_parts, scalar_slot, ScalarSlot};
use roving::{Document, Value};

/// Checks every array and map record under `v` against the reader.
fn check(buf: &[u8], v: Value<'_>, checked: &mut usize) {
    let agrees = |s: Option<ScalarSlot<'_>>, v: Value<'_>| match s {
        None => true,
        Some(ScalarSlot::Null) => v == Value::Null,
        Some(ScalarSlot::Bool(b)) => v == Value::Bool(b),
        Some(ScalarSlot::Int(i)) => v.as_i64() == Some(i) && !matches!(v, Value::Float(_)),
        Some(ScalarSlot::Float(f)) => {
            matches!(v, Value::Float(g) if g.to_bits() == f.to_bits())
        }
        Some(ScalarSlot::ShortStr(b)) => v.as_str().map(str::as_bytes) == Some(b),
    };
    match v {
        Value::Array(a) => {
            if let Some(pos) = a.offset() {
                if let Some(p) = array_record_parts(buf, pos) {
                    assert_eq!(p.len, a.len());
                    for i in 0..p.len {
                        let s = scalar_slot(buf, p.slots + i * p.width, p.width, pos);
                        assert!(agrees(s, a.get(i).unwrap()), "{pos} [{i}]: {s:?}");
                        *checked += s.is_some() as usize;
                    }
                }
            }
            for x in a.iter() {
                check(buf, x, checked);
            }
        }
        Value::Map(m) => {
            if let Some(pos) = m.offset() {
                if let Some(p) = map_record_parts(buf, pos) {
                    assert_eq!(p.len, m.len());
                    assert_eq!(Some(p.shape), m.shape_offset());
                    for i in 0..p.len {
                        let s = scalar_slot(buf, p.slots + i * p.width, p.width, pos);
                        assert!(agrees(s, m.value_at(i).unwrap()), "{pos} .{i}: {s:?}");
                        *checked += s.is_some() as usize;
                    }
                }
            }
            for (_, x) in m.iter() {
                check(buf, x, checked);
            }
        }
        _ => {}
    }
}

#[test]
fn slots_agree_with_the_reader() {
    let json = br#"{"a":[1,-300,70000,-5000000000,0.5,0.1,1e300,3.25,"ab","",null,true,false,
        [1,2],{"x":1}],"b":{"n":null,"t":true,"s":"a string longer than sixty-three bytes so a long record",
        "i":-40,"big":123456789012345678901234567890,"f":2.5},"c":[{"k":1,"v":"x"},{"k":2,"v":"y"}]}"#;
    let bytes = roving::json::from_json(json).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let mut checked = 0;
    check(&bytes, doc.root(), &mut checked);
    assert!(checked >= 20, "{checked}");
}

proptest! {
    /// Any bytes, any position and width: no panic.
    #[test]
    fn any_bytes_return(buf in prop::collection::vec(any::<u8>(), 0..64), at in 0usize..80,
                        w in prop::sample::select(vec![1usize, 2, 4, 8]), base in 0usize..80) {
        let _ = scalar_slot(&buf, at, w, base);
        let _ = array_record_parts(&buf, at);
        let _ = map_record_parts(&buf, at);
    }
}
