//! Records lie at any byte offset in LMDB's map: what that means for the
//! zero-copy slices of their typed vectors.

mod common;

use roving_store::{Store, StoreOptions};

use common::tmp;

/// Records lie at any byte offset in the map: a typed vector's zero-copy
/// slice needs alignment and is then `None` (never wrong), while `to_vec`
/// and `iter` read every record's vector.
#[test]
fn vectors_of_records_read_at_any_alignment() {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default()).unwrap();
    for i in 0..40 {
        let mut e = roving::Encoder::new();
        e.begin_map().unwrap();
        e.key("pad").unwrap();
        e.str(&"x".repeat(i)).unwrap();
        e.key("v").unwrap();
        e.vector(&[1.5f64, -2.0]).unwrap();
        e.end_map().unwrap();
        s.put(&format!("k{}", "y".repeat(i)), e.finish().unwrap())
            .unwrap();
    }
    s.flush().unwrap();
    let mut unaligned = 0;
    for r in s.iter() {
        let (_, doc) = r.unwrap();
        let v = doc.root().get("v").unwrap().as_vector().unwrap();
        assert_eq!(v.to_vec::<f64>(), Some(vec![1.5, -2.0]));
        assert_eq!(v.iter().count(), 2);
        match v.as_slice::<f64>() {
            Some(x) => assert_eq!(x, [1.5, -2.0]),
            None => unaligned += 1,
        }
    }
    assert!(unaligned > 0, "some records lie at unaligned addresses");
}
