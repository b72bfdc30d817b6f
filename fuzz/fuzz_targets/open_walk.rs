//! Arbitrary bytes: open (validate), then walk every value, look keys and
//! paths up, and convert to JSON (whose size the value limit bounds).
//! Must never crash or hang.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::{Document, KeyHandle, Limits, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::open(data) else {
        return;
    };
    let handle = KeyHandle::new("name");
    let mut stack = vec![doc.root()];
    let mut budget = 100_000u32;
    while let Some(v) = stack.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        match v {
            Value::Array(a) => {
                let _ = a.get(a.len());
                stack.extend(a.iter());
            }
            Value::Map(m) => {
                for (k, x) in m.iter() {
                    assert!(m.get(k).is_some());
                    stack.push(x);
                }
                let _ = m.get_with(&handle);
                let _ = m.get("");
            }
            Value::Vector(x) => {
                let _ = x.to_vec::<u8>();
                let _ = x.get(0);
                let _ = x.as_slice::<f64>();
            }
            Value::BigInt(b) => {
                let _ = b.to_decimal();
            }
            Value::Timestamp(t) => {
                let _ = t.to_rfc3339();
            }
            _ => {}
        }
    }
    let _ = doc.get_path("[0].name");
    let opts = roving::json::JsonOptions {
        indent: None,
        limits: Limits {
            max_depth: 1000,
            max_values: 100_000,
        },
        ext_text: None,
    };
    let mut out = Vec::new();
    let _ = roving::json::write_json(doc.root(), &opts, &mut out);
    // The limit bounds the output too (a value per 16 bytes of text), past
    // it by at most one value (a string escaped as `\u00XX` at worst).
    assert!(
        out.len() <= 100_000 * roving::BYTES_PER_VALUE + 6 * data.len() + 64,
        "{} bytes of JSON from {} bytes",
        out.len(),
        data.len()
    );
});
