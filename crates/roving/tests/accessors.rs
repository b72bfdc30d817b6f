//! Typed accessors of `Value` for every kind of the data model, and
//! iterating an array from both ends.

use roving::{Document, Encoder, Timestamp};

#[test]
fn every_kind_has_an_accessor() {
    // Through the re-export: a user need not depend on num-bigint.
    let big: roving::num_bigint::BigInt = "-123456789012345678901234567890".parse().unwrap();
    let t = Timestamp::new(1_700_000_000, 5, Some(3600)).unwrap();
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.timestamp(t).unwrap();
    e.vector(&[1.5f32, 2.5]).unwrap();
    e.ext(u64::MAX, b"payload").unwrap();
    e.bigint(&big).unwrap();
    e.i64(-7).unwrap();
    e.u64(u64::MAX).unwrap();
    e.str("s").unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    let a = doc.root().as_array().unwrap();
    let at = |i: usize| a.get(i).unwrap();

    assert_eq!(at(0).as_timestamp(), Some(t));
    let v = at(1).as_vector().unwrap();
    assert_eq!(v.to_vec::<f32>(), Some(vec![1.5, 2.5]));
    let x = at(2).as_ext().unwrap();
    assert_eq!((x.type_id, x.data), (u64::MAX, &b"payload"[..]));
    assert_eq!(at(3).as_bigint(), Some(big));
    assert_eq!(at(4).as_bigint(), Some((-7).into()));
    assert_eq!(at(5).as_bigint(), Some(u64::MAX.into()));
    for i in 0..7 {
        let v = at(i);
        assert_eq!(v.as_timestamp().is_some(), i == 0);
        assert_eq!(v.as_vector().is_some(), i == 1);
        assert_eq!(v.as_ext().is_some(), i == 2);
        assert_eq!(v.as_bigint().is_some(), (3..=5).contains(&i));
    }
}

#[test]
fn arrays_iterate_from_both_ends() {
    let bytes = roving::json::from_json(b"[1,2,3,4,5]").unwrap();
    let doc = Document::open(&bytes).unwrap();
    let a = doc.root().as_array().unwrap();
    let back: Vec<i64> = a.iter().rev().filter_map(|v| v.as_i64()).collect();
    assert_eq!(back, [5, 4, 3, 2, 1]);
    let mut it = a.iter();
    assert_eq!(it.next().and_then(|v| v.as_i64()), Some(1));
    assert_eq!(it.next_back().and_then(|v| v.as_i64()), Some(5));
    assert_eq!(it.len(), 3);
    let middle: Vec<i64> = it.by_ref().filter_map(|v| v.as_i64()).collect();
    assert_eq!(middle, [2, 3, 4]);
    assert!(it.next().is_none() && it.next_back().is_none());
    assert_eq!(it.len(), 0);
}

/// `Encoder::i128` (and serde's `i128`/`u128`) write 128-bit integers;
/// `as_i128`/`as_u128` read them back without a big-integer library,
/// `None` past the type's range or for another kind.
#[test]
fn integers_read_back_as_128_bits() {
    let values: [i128; 8] = [
        0,
        -7,
        i64::MIN as i128,
        u64::MAX as i128,
        u64::MAX as i128 + 1,
        i128::MIN,
        i128::MAX,
        -(1i128 << 100),
    ];
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for v in values {
        e.i128(v).unwrap();
    }
    e.u64(u64::MAX).unwrap();
    e.bigint(&(num_bigint::BigInt::from(u128::MAX))).unwrap();
    e.bigint(&(num_bigint::BigInt::from(u128::MAX) + 1))
        .unwrap();
    e.bigint(&(num_bigint::BigInt::from(i128::MIN) - 1))
        .unwrap();
    e.f64(1.0).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    let a = doc.root().as_array().unwrap();
    for (i, v) in values.into_iter().enumerate() {
        assert_eq!(a.get(i).unwrap().as_i128(), Some(v), "{v}");
        assert_eq!(a.get(i).unwrap().as_u128(), u128::try_from(v).ok(), "{v}");
    }
    let n = values.len();
    assert_eq!(a.get(n).unwrap().as_u128(), Some(u64::MAX as u128));
    assert_eq!(a.get(n + 1).unwrap().as_u128(), Some(u128::MAX));
    assert_eq!(a.get(n + 1).unwrap().as_i128(), None);
    assert_eq!(a.get(n + 2).unwrap().as_u128(), None);
    assert_eq!(a.get(n + 3).unwrap().as_i128(), None);
    assert_eq!(a.get(n + 4).unwrap().as_i128(), None);
    let typed: Vec<u128> = roving::from_slice(&roving::to_vec(&[u128::MAX]).unwrap()).unwrap();
    let d = roving::to_vec(&typed).unwrap();
    assert_eq!(
        Document::open(&d)
            .unwrap()
            .root()
            .index(0)
            .unwrap()
            .as_u128(),
        Some(u128::MAX)
    );
}

/// `Map::contains_key`, as on `HashMap` and `serde_json::Map`.
#[test]
fn maps_say_whether_they_have_a_key() {
    let bytes = roving::json::from_json(br#"{"a":null,"b":1}"#).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let m = doc.root().as_map().unwrap();
    assert!(m.contains_key("a"));
    assert!(m.contains_key("b"));
    assert!(!m.contains_key("c"));
}
