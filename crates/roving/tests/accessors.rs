//! Typed accessors of `Value` for every kind of the data model, and
//! iterating an array from both ends.

use roving::{Document, Encoder, Timestamp};

#[test]
fn every_kind_has_an_accessor() {
    let big: num_bigint::BigInt = "-123456789012345678901234567890".parse().unwrap();
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
