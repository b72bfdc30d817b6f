//! Arbitrary bytes decoded into the serde shapes `serde_typed` leaves out:
//! 128-bit integers, chars, borrowed byte slices, unit and tuple structs,
//! internally, adjacently and untagged enums, flattened fields, number,
//! bool and char map keys, float map keys (read from any key text),
//! plain byte sequences (read from byte strings, arrays and vectors),
//! timestamps, and a recursive type as deep as the depth limit allows;
//! also from a lazily opened document. Must never crash or hang; what
//! decodes encodes and decodes back the same.
#![no_main]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Unit;

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Pair(i128, u128);

#[derive(Deserialize, Serialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum Tagged {
    A { x: i8 },
    B,
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    A(u16),
    B(String),
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
#[serde(untagged)]
enum Untagged {
    Int(i64),
    Text(String),
    List(Vec<Untagged>),
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Inner {
    c: char,
    ts: Option<roving::Timestamp>,
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Edge<'a> {
    #[serde(borrow, with = "borrowed_bytes")]
    raw: &'a [u8],
    unit: Unit,
    pair: Pair,
    tagged: Tagged,
    adjacent: Adjacent,
    untagged: Untagged,
    by_int: BTreeMap<i32, bool>,
    by_bool: BTreeMap<bool, u8>,
    by_char: BTreeMap<char, ()>,
    f: f32,
    #[serde(flatten)]
    inner: Inner,
}

/// A `&[u8]` field through `serialize_bytes` / borrowed bytes.
mod borrowed_bytes {
    pub fn serialize<S: serde::Serializer>(b: &&[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(b)
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'de [u8], D::Error> {
        <&[u8]>::deserialize(d)
    }
    use serde::Deserialize;
}

/// An `f64` map key, ordered by `total_cmp` (bit-exact equality).
#[derive(Deserialize, Serialize, Debug, Clone, Copy)]
struct FloatKey(f64);

impl PartialEq for FloatKey {
    fn eq(&self, o: &Self) -> bool {
        self.0.to_bits() == o.0.to_bits()
    }
}
impl Eq for FloatKey {}
impl PartialOrd for FloatKey {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for FloatKey {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

#[derive(Deserialize, Serialize, Debug, PartialEq)]
struct Chain {
    next: Option<Box<Chain>>,
}

/// Decodes a `$t` from `data` (validated), and from the same bytes opened
/// lazily; a decoded value encodes and decodes back equal (`$same`
/// decides equality, for floats that may be NaN).
macro_rules! check {
    ($data:expr, $t:ty, $same:expr) => {{
        let data: &[u8] = $data;
        let v = roving::from_slice::<$t>(data);
        if let Ok(doc) = roving::Document::open_lazy(data) {
            // A lazy container is validated first; a scalar root is read
            // with the lazy checks alone (nothing of it can expand).
            let lazy = roving::from_value::<$t>(doc.root());
            if doc.root().is_lazy() || v.is_ok() {
                assert_eq!(lazy.is_ok(), v.is_ok(), "lazy and validated decoding disagree");
            }
        }
        if let Ok(v) = v {
            let bytes = roving::to_vec(&v).expect("what decodes encodes");
            let back = roving::from_slice::<$t>(&bytes).expect("round trip");
            let same = $same;
            assert!(same(&v, &back), "{v:?} != {back:?}");
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    check!(data, Edge<'_>, |a: &Edge<'_>, b: &Edge<'_>| {
        a.raw == b.raw
            && a.pair == b.pair
            && a.tagged == b.tagged
            && a.adjacent == b.adjacent
            && a.untagged == b.untagged
            && a.by_int == b.by_int
            && a.by_bool == b.by_bool
            && a.by_char == b.by_char
            && (a.f.to_bits() == b.f.to_bits() || a.f.is_nan() && b.f.is_nan())
            && a.inner == b.inner
    });
    check!(data, Chain, |a: &Chain, b: &Chain| a == b);
    check!(data, Vec<Untagged>, |a: &Vec<Untagged>, b: &Vec<Untagged>| a == b);
    type Floats = BTreeMap<FloatKey, Vec<u8>>;
    check!(data, Floats, |a: &Floats, b: &Floats| a == b);
    type Bytes4 = (BTreeMap<u64, [u8; 4]>, Box<[u8]>);
    check!(data, Bytes4, |a: &Bytes4, b: &Bytes4| a == b);
    type Tuple = (char, i128, Option<Unit>);
    check!(data, Tuple, |a: &Tuple, b: &Tuple| a == b);
});
