//! The encoder on inputs that change shape under it: structs of different
//! fields at one depth (the predicted shape is dropped mid-map), and one
//! encoder reused for many documents (the string table's generation wraps
//! past 255 documents), which must give the bytes of a fresh encoder.

mod common;
use common::Rng;

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct A {
    x: u32,
    y: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct B {
    z: u32,
    w: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
struct C {
    x: u32,
    w: Option<f64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
enum E {
    A(A),
    B(B),
    C(C),
    V { x: u32, y: String },
    W { y: String },
}

/// Struct fields (static keys) that differ from the shape predicted at
/// their depth: the guess is dropped in `key_static_slow` (a subtraction
/// there overflowed in debug builds once the guess was dropped).
#[test]
fn structs_of_different_fields_at_one_depth() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let mut v = Vec::new();
    for i in 0..500u32 {
        let r = rng.next();
        let s = format!("s{}", r % 37);
        v.push(match r % 5 {
            0 => E::A(A { x: i, y: s }),
            1 => E::B(B { z: i, w: s }),
            2 => E::C(C {
                x: i,
                w: (r & 8 == 0).then_some(i as f64 / 4.0),
            }),
            3 => E::V { x: i, y: s },
            _ => E::W { y: s },
        });
    }
    let bytes = roving::to_vec(&v).unwrap();
    assert_eq!(roving::from_slice::<Vec<E>>(&bytes).unwrap(), v);
    // The same maps as JSON (keys by `Encoder::key`) give the same bytes.
    let json = serde_json::to_string(&v).unwrap();
    assert_eq!(roving::json::from_json(json.as_bytes()).unwrap(), bytes);
    // Tuples of two struct types, and a struct after a longer one.
    let t = (
        vec![A {
            x: 1,
            y: "a".into(),
        }],
        vec![B {
            z: 2,
            w: "b".into(),
        }],
    );
    let bytes = roving::to_vec(&t).unwrap();
    assert_eq!(roving::from_slice::<(Vec<A>, Vec<B>)>(&bytes).unwrap(), t);
}

/// A random JSON document of `n` values: repeated and unique strings,
/// maps of a few shapes, numbers.
fn random_doc(rng: &mut Rng, d: usize, n: u64) -> String {
    let mut s = String::from("[");
    for j in 0..n {
        if j > 0 {
            s.push(',');
        }
        let r = rng.next();
        match r % 5 {
            0 => s.push_str(&format!("\"k{}\"", r % 300)),
            1 => s.push_str(&format!(
                "{{\"a{}\":\"v{}\",\"b\":{}}}",
                r % 3,
                (r >> 8) % 1000,
                (r >> 20) % 100_000
            )),
            2 => s.push_str(&format!("\"u{d}_{j}\"")),
            3 => s.push_str(&format!("{{\"u{d}\":[\"u{d}_{j}\",\"k{}\"]}}", r % 7)),
            _ => s.push_str(&format!("{}", (r >> 12) as f64 / 1e6)),
        }
    }
    s.push(']');
    s
}

/// One encoder, 1,200 documents (the string table's 8-bit generation
/// wraps several times; a few large documents grow and shrink the
/// table): each document's bytes are those of a fresh encoder.
#[test]
fn reused_encoder_matches_a_fresh_one_across_generation_wraps() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut enc = roving::Encoder::new();
    for d in 0..1_200usize {
        let n = 1 + rng.next() % if d % 150 == 0 { 6_000 } else { 40 };
        let text = random_doc(&mut rng, d % 400, n);
        roving::json::from_json_into(text.as_bytes(), &mut enc).unwrap();
        let reused = enc.finish_reset().unwrap();
        let fresh = roving::json::from_json(text.as_bytes()).unwrap();
        assert_eq!(reused, fresh, "document {d}");
        roving::Document::open(&reused).unwrap();
    }
}

/// The same document again and again on one encoder (every string of it
/// is in the table of each earlier generation): always the same bytes.
#[test]
fn one_document_repeated_past_the_generation_wrap() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let text = random_doc(&mut rng, 1, 200);
    let fresh = roving::json::from_json(text.as_bytes()).unwrap();
    let mut enc = roving::Encoder::new();
    for d in 0..600 {
        roving::json::from_json_into(text.as_bytes(), &mut enc).unwrap();
        assert_eq!(enc.finish_reset().unwrap(), fresh, "document {d}");
    }
}
