//! Arbitrary bytes through `roving::json::from_json` and serde_json (with
//! correctly rounded floats): both accept or both reject, except where
//! docs/FORMAT.md section 17.1 says otherwise (serde_json's nesting limit
//! of 128; a number whose magnitude rounds to infinity, which we reject
//! when it has a fraction or an exponent and read as a big integer when it
//! has not);
//! an accepted text gives the same value in both (integers beyond 64 bits:
//! a big integer here, the nearest float there; a repeated key keeps its
//! last value), and our JSON output reads back in serde_json as that value.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::{Document, Value};
use serde_json::Value as J;

/// Whether our value is serde_json's (at most `budget` values compared).
fn same(v: Value<'_>, j: &J, budget: &mut u32) -> bool {
    if *budget == 0 {
        return true;
    }
    *budget -= 1;
    match (v, j) {
        (Value::Null, J::Null) => true,
        (Value::Bool(a), J::Bool(b)) => a == *b,
        (Value::Int(a), J::Number(n)) => n.as_i64() == Some(a),
        (Value::UInt(a), J::Number(n)) => n.as_u64() == Some(a),
        // serde_json reads integers beyond 64 bits as the nearest float.
        (Value::BigInt(b), J::Number(n)) => {
            n.is_f64() && b.to_decimal().parse::<f64>().ok() == n.as_f64()
        }
        (Value::Float(a), J::Number(n)) => match n.as_f64() {
            // `-0` is the float -0.0 here and may be the integer 0 there.
            Some(f) if n.is_f64() => f.to_bits() == a.to_bits(),
            Some(f) => a == 0.0 && f == 0.0,
            None => false,
        },
        (Value::Str(a), J::String(b)) => a == b,
        (Value::Array(a), J::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y, budget))
        }
        (Value::Map(a), J::Object(b)) => {
            a.len() == b.len()
                && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same(x, y, budget)))
        }
        _ => false,
    }
}

/// Whether `v` holds an integer beyond the range of f64 (a big integer
/// here, which serde_json reads as a float and rejects as out of range).
fn has_huge_int(v: Value<'_>) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::BigInt(b) if b.to_decimal().parse::<f64>().is_ok_and(f64::is_infinite) => {
                return true
            }
            Value::Array(a) => stack.extend(a.iter()),
            Value::Map(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    false
}

fuzz_target!(|data: &[u8]| {
    let ours = roving::json::from_json(data);
    let theirs = serde_json::from_slice::<J>(data);
    let bytes = match (ours, theirs) {
        (Ok(bytes), Ok(j)) => {
            let doc = Document::open(&bytes).expect("encoder output validates");
            let mut budget = 100_000;
            assert!(same(doc.root(), &j, &mut budget), "different values: {j:?}");
            // Our JSON output is JSON that means the same.
            let text = roving::json::to_json(doc.root()).expect("to_json");
            let back: J = serde_json::from_str(&text).expect("serde_json reads our output");
            assert!(same(doc.root(), &back, &mut 100_000), "output means {back:?}");
            bytes
        }
        (Err(_), Err(_)) => return,
        (Ok(bytes), Err(e)) => {
            let doc = Document::open(&bytes).expect("encoder output validates");
            let m = e.to_string();
            assert!(
                m.starts_with("recursion limit exceeded")
                    || m.starts_with("number out of range") && has_huge_int(doc.root()),
                "we accept what serde_json rejects: {e}"
            );
            bytes
        }
        (Err(e), Ok(_)) => {
            assert!(
                e.message().is_some_and(|m| m.contains("range")),
                "serde_json accepts what we reject: {e}"
            );
            return;
        }
    };
    Document::open(&bytes).expect("encoder output validates");
});
