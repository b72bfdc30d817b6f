//! The language-neutral value notation of the golden vectors
//! (tests/vectors/README.md): plain JSON for null, booleans, strings and
//! arrays; tagged objects for everything else.

use roving::{ElemType, Encoder, Timestamp, Value};
use serde_json::{json, Value as J};
use std::collections::HashMap;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

pub fn to_hex(b: &[u8]) -> String {
    hex(b)
}

fn elem_of(name: &str) -> ElemType {
    (0..10u8)
        .filter_map(ElemType::from_code)
        .find(|e| e.name() == name)
        .unwrap_or_else(|| panic!("bad element type {name}"))
}

/// Writes a neutral value into an encoder.
pub fn encode(v: &J, enc: &mut Encoder, marks: &mut HashMap<String, roving::Mark>) {
    match v {
        J::Null => enc.null().unwrap(),
        J::Bool(b) => enc.bool(*b).unwrap(),
        J::String(s) => enc.str(s).unwrap(),
        J::Number(_) => panic!("numbers must be tagged in the neutral notation"),
        J::Array(a) => {
            enc.begin_array().unwrap();
            for x in a {
                encode(x, enc, marks);
            }
            enc.end_array().unwrap();
        }
        J::Object(o) => {
            const TAGS: [&str; 9] = [
                "int",
                "float",
                "bytes",
                "map",
                "timestamp",
                "vector",
                "ext",
                "share",
                "again",
            ];
            let tag = TAGS
                .iter()
                .find(|t| o.contains_key(**t))
                .expect("untagged object");
            let body = &o[*tag];
            match *tag {
                "int" => {
                    let n: num_bigint::BigInt = body.as_str().unwrap().parse().unwrap();
                    enc.bigint(&n).unwrap()
                }
                "float" => enc
                    .f64(f64::from_bits(
                        u64::from_str_radix(body.as_str().unwrap(), 16).unwrap(),
                    ))
                    .unwrap(),
                "bytes" => enc.bytes(&unhex(body.as_str().unwrap())).unwrap(),
                "map" => {
                    enc.begin_map().unwrap();
                    for kv in body.as_array().unwrap() {
                        enc.key(kv[0].as_str().unwrap()).unwrap();
                        encode(&kv[1], enc, marks);
                    }
                    enc.end_map().unwrap();
                }
                "timestamp" => enc
                    .timestamp(Timestamp {
                        seconds: body["seconds"].as_str().unwrap().parse().unwrap(),
                        nanos: body["nanos"].as_u64().unwrap() as u32,
                        offset: body["offset"].as_i64().map(|o| o as i32),
                    })
                    .unwrap(),
                "vector" if o.contains_key("shape") => enc
                    .shaped_vector_raw(
                        elem_of(body.as_str().unwrap()),
                        &o["shape"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|d| d.as_u64().unwrap() as usize)
                            .collect::<Vec<_>>(),
                        &unhex(o["data"].as_str().unwrap()),
                    )
                    .unwrap(),
                "vector" => enc
                    .vector_raw(
                        elem_of(body.as_str().unwrap()),
                        &unhex(o["data"].as_str().unwrap()),
                    )
                    .unwrap(),
                "ext" => enc
                    .ext(body.as_u64().unwrap(), &unhex(o["data"].as_str().unwrap()))
                    .unwrap(),
                "share" => {
                    encode(&o["value"], enc, marks);
                    marks.insert(body.as_str().unwrap().to_string(), enc.mark().unwrap());
                }
                "again" => enc.reuse(marks[body.as_str().unwrap()]).unwrap(),
                t => panic!("unknown tag {t}"),
            }
        }
    }
}

/// Encodes a neutral value as a document.
pub fn encode_doc(v: &J) -> Vec<u8> {
    let mut enc = Encoder::new();
    encode(v, &mut enc, &mut HashMap::new());
    enc.finish().unwrap()
}

/// Replaces `share`/`again` notation by the values they stand for.
pub fn expand(v: &J, names: &mut HashMap<String, J>) -> J {
    match v {
        J::Array(a) => J::Array(a.iter().map(|x| expand(x, names)).collect()),
        J::Object(o) if o.contains_key("share") => {
            let e = expand(&o["value"], names);
            names.insert(o["share"].as_str().unwrap().to_string(), e.clone());
            e
        }
        J::Object(o) if o.contains_key("again") => names[o["again"].as_str().unwrap()].clone(),
        J::Object(o) if o.contains_key("map") => {
            let kvs = o["map"]
                .as_array()
                .unwrap()
                .iter()
                .map(|kv| json!([kv[0].clone(), expand(&kv[1], names)]))
                .collect::<Vec<_>>();
            json!({ "map": kvs })
        }
        _ => v.clone(),
    }
}

/// The neutral notation of a decoded value (integers normalized).
pub fn from_value(v: Value<'_>) -> J {
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(b),
        Value::Int(i) => json!({ "int": i.to_string() }),
        Value::UInt(u) => json!({ "int": u.to_string() }),
        Value::BigInt(b) => json!({ "int": b.to_decimal() }),
        Value::Float(f) => json!({ "float": format!("{:016x}", f.to_bits()) }),
        Value::Str(s) => J::String(s.to_string()),
        Value::Bytes(b) => json!({ "bytes": hex(b) }),
        Value::Timestamp(t) => json!({ "timestamp": {
            "seconds": t.seconds.to_string(), "nanos": t.nanos, "offset": t.offset } }),
        Value::Array(a) => J::Array(a.iter().map(from_value).collect()),
        Value::Map(m) => {
            json!({ "map": m.iter().map(|(k, v)| json!([k, from_value(v)])).collect::<Vec<_>>() })
        }
        Value::Vector(x) if x.ndim() > 1 => json!({
            "vector": x.elem_type().name(),
            "shape": x.shape(),
            "data": hex(x.raw()),
        }),
        Value::Vector(x) => json!({ "vector": x.elem_type().name(), "data": hex(x.raw()) }),
        Value::Ext(e) => json!({ "ext": e.type_id, "data": hex(e.data) }),
    }
}

/// Normalizes `int` notation (e.g. "007" -> "7") so comparisons are exact.
pub fn normalize(v: &J) -> J {
    match v {
        J::Array(a) => J::Array(a.iter().map(normalize).collect()),
        J::Object(o) if o.contains_key("int") => {
            let n: num_bigint::BigInt = o["int"].as_str().unwrap().parse().unwrap();
            json!({ "int": n.to_string() })
        }
        J::Object(o) if o.contains_key("map") => {
            let kvs = o["map"]
                .as_array()
                .unwrap()
                .iter()
                .map(|kv| json!([kv[0].clone(), normalize(&kv[1])]))
                .collect::<Vec<_>>();
            json!({ "map": kvs })
        }
        _ => v.clone(),
    }
}
