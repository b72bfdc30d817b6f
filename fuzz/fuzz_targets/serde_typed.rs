//! Arbitrary bytes decoded into representative typed structs.
#![no_main]
use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Friend<'a> {
    id: u64,
    #[serde(borrow)]
    name: &'a str,
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Person<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    age: Option<u8>,
    tags: Vec<String>,
    #[serde(borrow)]
    friends: Vec<Friend<'a>>,
    score: f64,
    kind: Kind,
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
enum Kind {
    A,
    B(i32),
    C { x: i8 },
}

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = roving::from_slice::<Person<'_>>(data) {
        let again = roving::to_vec(&p).expect("serialize");
        let back: Person<'_> = roving::from_slice(&again).expect("round trip");
        assert!(back == p || p.score.is_nan());
    }
    let _ = roving::from_slice::<Vec<Friend<'_>>>(data);
    let _ = roving::from_slice::<(u8, String, Option<bool>)>(data);
    let _ = roving::from_slice::<std::collections::HashMap<String, Vec<i64>>>(data);
});
