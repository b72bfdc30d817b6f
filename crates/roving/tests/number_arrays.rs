//! Number array records (format version 2, tags `30`-`3A`): which arrays
//! the encoder packs and how, and that every reader reads them as the
//! array of slots they stand for.

mod common;

use roving::layout::{ElemType, NumElem};
use roving::{Document, Encoder, ErrorKind, Value};

/// A number written by [`encode`].
#[derive(Clone, Copy, Debug)]
enum N {
    I(i64),
    U(u64),
    F(f64),
}

/// The document of an array of `xs`.
fn encode(xs: &[N]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for &x in xs {
        match x {
            N::I(v) => e.i64(v).unwrap(),
            N::U(v) => e.u64(v).unwrap(),
            N::F(v) => e.f64(v).unwrap(),
        }
    }
    e.end_array().unwrap();
    e.finish().unwrap()
}

/// How the root array of `bytes` is stored (`None`: slots), after checking
/// that it reads back as `xs` through `get`, `iter`, `slots` and
/// `numbers`, and that its version is 2 exactly when it is packed.
fn packed_as(bytes: &[u8], xs: &[N]) -> Option<NumElem> {
    let doc = Document::open(bytes).unwrap();
    let a = doc.root().as_array().unwrap();
    assert_eq!(a.len(), xs.len());
    let same = |v: Value<'_>, x: N| match (v, x) {
        (Value::Int(a), N::I(b)) => a == b,
        (Value::Int(a), N::U(b)) => a as u64 == b && a >= 0,
        (Value::UInt(a), N::U(b)) => a == b,
        (Value::Float(a), N::F(b)) => a.to_bits() == b.to_bits(),
        _ => false,
    };
    let slots = a.slots();
    for (i, &x) in xs.iter().enumerate() {
        assert!(same(a.get(i).unwrap(), x), "get({i}) of {xs:?}");
        assert!(same(slots.value(i).unwrap(), x), "slots({i}) of {xs:?}");
        assert!(same(a.try_get(i).unwrap().unwrap(), x));
    }
    assert!(a.get(xs.len()).is_none());
    assert_eq!(a.iter().count(), xs.len());
    assert!(a.iter().zip(xs).all(|(v, &x)| same(v, x)));
    assert!(a
        .iter()
        .rev()
        .zip(xs.iter().rev())
        .all(|(v, &x)| same(v, x)));
    let packed = a.numbers().map(|n| {
        assert_eq!(n.len(), xs.len());
        assert_eq!(n.raw().len(), xs.len() * n.elem().size());
        for (i, &x) in xs.iter().enumerate() {
            assert!(same(n.get(i).unwrap(), x));
        }
        n.elem()
    });
    assert_eq!(doc.version(), if packed.is_some() { 2 } else { 1 });
    // Lazily opened, the same.
    let lazy = Document::open_lazy(bytes).unwrap().root();
    assert!(lazy == doc.root());
    packed
}

#[test]
fn integers_take_the_narrowest_element_type() {
    use ElemType::*;
    let cases: &[(&[N], ElemType)] = &[
        (&[N::I(1), N::I(2), N::I(3)], I8),
        (&[N::I(-128), N::I(127)], I8),
        (&[N::I(0), N::I(128)], U8),
        (&[N::I(255)], U8),
        (&[N::I(-1), N::I(128)], I16),
        (&[N::I(256), N::I(-32768)], I16),
        (&[N::I(40000)], U16),
        (&[N::I(65536)], I32),
        (&[N::I(-1), N::I(40000)], I32),
        (&[N::I(i32::MIN as i64)], I32),
        (&[N::I(u32::MAX as i64)], U32),
        (&[N::I(-1), N::I(u32::MAX as i64)], I64),
        (&[N::I(1 << 61), N::I(-(1 << 61) - 1)], I64),
        (&[N::I(i64::MIN), N::I(i64::MAX)], I64),
        (&[N::U(u64::MAX), N::I(0), N::I(5)], U64),
        (&[N::U(1 << 63)], U64),
    ];
    for (xs, want) in cases {
        let bytes = encode(xs);
        assert_eq!(
            packed_as(&bytes, xs),
            Some(NumElem::Binary(*want)),
            "{xs:?}"
        );
    }
    // 20,000 ints above 8191 (which need 4-byte slots): 2 bytes each.
    let xs: Vec<N> = (0..20_000).map(|i| N::I(10_000 + i)).collect();
    let bytes = encode(&xs);
    assert_eq!(packed_as(&bytes, &xs), Some(NumElem::Binary(I16)));
    assert!(bytes.len() < 20_000 * 2 + 16, "{}", bytes.len());
}

#[test]
fn floats_take_f32_then_decimal_then_f64() {
    let f = |v: &[f64]| v.iter().map(|&x| N::F(x)).collect::<Vec<_>>();
    let cases: &[(&[f64], NumElem)] = &[
        (&[1.5, -2.0, 0.25], NumElem::Binary(ElemType::F32)),
        (
            &[-0.0, 0.0, f64::INFINITY, f64::NAN],
            NumElem::Binary(ElemType::F32),
        ),
        (&[0.1, 0.5], NumElem::Decimal(-1)),
        (&[0.1, 2.25, 0.0, 100.0], NumElem::Decimal(-2)),
        (&[-45.848157, 12.5], NumElem::Decimal(-6)),
        (&[3e10, 0.1], NumElem::Binary(ElemType::F64)), // 3e11 * 10^-1: too wide
        (&[0.1, -0.0], NumElem::Binary(ElemType::F64)),
        (&[0.1, f64::NAN], NumElem::Binary(ElemType::F64)),
        (&[0.1, 1e-300], NumElem::Binary(ElemType::F64)),
        (&[std::f64::consts::PI], NumElem::Binary(ElemType::F64)),
        (&[3e10, 5e10], NumElem::Decimal(10)),
    ];
    for (xs, want) in cases {
        let xs = f(xs);
        let bytes = encode(&xs);
        assert_eq!(packed_as(&bytes, &xs), Some(*want), "{xs:?}");
    }
}

#[test]
fn other_arrays_keep_their_slots() {
    let cases: &[&[N]] = &[
        &[N::I(1), N::F(1.5)],
        &[N::F(1.5), N::I(1)],
        &[N::I(-1), N::U(1 << 63)],
    ];
    for xs in cases {
        assert_eq!(packed_as(&encode(xs), xs), None, "{xs:?}");
    }
    for json in [
        r#"[1, "a"]"#,
        "[1, null]",
        "[true]",
        "[[1], 2]",
        "[1.5, {}]",
    ] {
        let bytes = roving::json::from_json(json.as_bytes()).unwrap();
        let doc = Document::open(&bytes).unwrap();
        assert!(doc.root().as_array().unwrap().numbers().is_none(), "{json}");
        assert_eq!(
            roving::json::to_json(doc.root()).unwrap(),
            json.replace(' ', "")
        );
    }
}

/// A mark of an element keeps the array's records where they are; marks
/// of earlier values, reused as elements, also keep the slots.
#[test]
fn marks_and_reuse_stay_correct() {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.begin_array().unwrap();
    e.f64(1.5).unwrap();
    let m = e.mark().unwrap();
    e.f64(2.5).unwrap();
    e.end_array().unwrap();
    e.reuse(m).unwrap();
    e.begin_array().unwrap();
    e.reuse(m).unwrap();
    e.f64(3.5).unwrap();
    e.end_array().unwrap();
    e.begin_array().unwrap();
    e.f64(4.5).unwrap();
    e.f64(5.5).unwrap();
    let inner = e.end_array().unwrap();
    e.reuse(inner).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(
        roving::json::to_json(doc.root()).unwrap(),
        "[[1.5,2.5],1.5,[1.5,3.5],[4.5,5.5],[4.5,5.5]]"
    );
    let root = doc.root();
    let at = |i: usize| root.index(i).unwrap().as_array().unwrap();
    assert!(at(0).numbers().is_none());
    assert!(at(2).numbers().is_none());
    assert!(at(3).numbers().is_some());
    assert_eq!(at(3).offset(), at(4).offset());
    assert_eq!(doc.version(), 2);
    // Copying gives the same bytes.
    let mut c = Encoder::new();
    c.write_value(doc.root()).unwrap();
    let copy = c.finish().unwrap();
    assert!(Document::open(&copy).unwrap().root() == doc.root());
}

/// A packed array equals the same numbers written as slots, and reads the
/// same through JSON and serde.
#[test]
fn packed_equals_slots() {
    let xs = [0.5f64, 1.25, -3.0];
    let packed = roving::to_vec(&xs.to_vec()).unwrap();
    // The same array as slots, as a version 1 writer writes it: three
    // binary32 records, the array, the root.
    let slots = hex("525601 080000003f 080000a03f 08000040c0 1003 3c2814 1c141c");
    assert!(Document::open(&slots).is_ok());
    let (a, b) = (
        Document::open(&packed).unwrap(),
        Document::open(&slots).unwrap(),
    );
    assert!(a.root().as_array().unwrap().numbers().is_some());
    assert!(b.root().as_array().unwrap().numbers().is_none());
    assert!(a.root() == b.root());
    assert_eq!(
        roving::json::to_json(a.root()).unwrap(),
        roving::json::to_json(b.root()).unwrap()
    );
    assert_eq!(roving::from_slice::<Vec<f64>>(&packed).unwrap(), xs);
    assert_eq!(
        roving::from_slice::<Vec<f32>>(&packed).unwrap(),
        [0.5f32, 1.25, -3.0]
    );
    let ints = roving::to_vec(&vec![1u64, 2, u64::MAX]).unwrap();
    assert_eq!(
        roving::from_slice::<Vec<u64>>(&ints).unwrap(),
        [1, 2, u64::MAX]
    );
    assert_eq!(
        roving::from_slice::<(u8, i64, u64)>(&ints).unwrap(),
        (1, 2, u64::MAX)
    );
    assert!(roving::from_slice::<(u8, i64)>(&ints).is_err());
    assert!(roving::from_slice::<Vec<i8>>(&ints).is_err());
    let doc = Document::open(&ints).unwrap();
    assert_eq!(
        doc.get_path("[-1]").unwrap().unwrap().as_u64(),
        Some(u64::MAX)
    );
    assert_eq!(doc.get_path("[1]").unwrap().unwrap().as_i64(), Some(2));
}

/// Number arrays inside containers read through serde as sequences,
/// tuples, tuple structs and fixed arrays (the shapes of GeoJSON
/// coordinates), as the same numbers in slots read; a tuple of the wrong
/// length is an error at the element's path; a byte string still reads
/// as a tuple of its bytes.
#[test]
fn nested_number_arrays_read_through_serde() {
    use serde::{Deserialize, Serialize};
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Pt(f64, f64);
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Shape {
        ring: Vec<(f64, f64)>,
        pts: Vec<Pt>,
        arr: Vec<[f64; 2]>,
        ints: Vec<(u8, i64)>,
        nested: Vec<Vec<f32>>,
        opt: Vec<Option<(f64, f64)>>,
    }
    let shape = Shape {
        ring: vec![
            (-65.613_616_999_999_98, 43.420_273_000_000_01),
            (0.5, -1.25),
        ],
        pts: vec![Pt(1.5, 2.5), Pt(-0.0, 1e300)],
        arr: vec![[0.1, 0.2], [3.0, 4.0]],
        ints: vec![(7, -300), (255, 1 << 40)],
        nested: vec![vec![0.5, 1.5, 2.5], vec![]],
        opt: vec![Some((1.0, 2.0)), None],
    };
    let bytes = roving::to_vec(&shape).unwrap();
    let doc = Document::open(&bytes).unwrap();
    for path in [
        ".ring[0]",
        ".pts[1]",
        ".arr[0]",
        ".ints[1]",
        ".nested[0]",
        ".opt[0]",
    ] {
        let a = doc.get_path(path).unwrap().unwrap();
        assert!(
            a.as_array().unwrap().numbers().is_some(),
            "{path} is a number array"
        );
    }
    assert_eq!(roving::from_slice::<Shape>(&bytes).unwrap(), shape);
    // The same numbers in slots (an integer among floats keeps an array
    // in slots) read the same way.
    let mixed = roving::to_vec(&vec![(1.5f64, 2i64)]).unwrap();
    let mixed_doc = Document::open(&mixed).unwrap();
    assert!(mixed_doc
        .get_path("[0]")
        .unwrap()
        .unwrap()
        .as_array()
        .unwrap()
        .numbers()
        .is_none());
    assert_eq!(
        roving::from_slice::<Vec<(f64, f64)>>(&mixed).unwrap(),
        [(1.5, 2.0)]
    );
    assert_eq!(
        roving::from_slice::<Vec<Pt>>(&mixed).unwrap(),
        [Pt(1.5, 2.0)]
    );
    // Too short a tuple: an error at the element, packed or not.
    let pairs = roving::to_vec(&vec![(1.5f64, 2.5f64)]).unwrap();
    for doc in [&pairs, &mixed] {
        let err = roving::from_slice::<Vec<(f64,)>>(doc).unwrap_err();
        assert!(err.to_string().contains("[0]"), "{err}");
        assert!(err.to_string().contains("invalid length"), "{err}");
    }
    // A tuple of three from pairs.
    assert!(roving::from_slice::<Vec<(f64, f64, f64)>>(&pairs).is_err());
    // A byte string in a container: a tuple, a fixed array, a sequence of its bytes.
    let blobs = roving::to_vec(&vec![serde_bytes::ByteBuf::from(vec![1u8, 2])]).unwrap();
    assert_eq!(
        roving::from_slice::<Vec<(u8, u8)>>(&blobs).unwrap(),
        [(1, 2)]
    );
    assert_eq!(
        roving::from_slice::<Vec<[u8; 2]>>(&blobs).unwrap(),
        [[1, 2]]
    );
    assert_eq!(
        roving::from_slice::<Vec<Vec<u8>>>(&blobs).unwrap(),
        [vec![1, 2]]
    );
}

/// A number array in a version 1 document is an unknown tag, for the
/// validator and for a lazily opened document.
#[test]
fn version_1_documents_refuse_number_arrays() {
    let v2 = hex("525602 3002 0102 1c 10 1c");
    let doc = Document::open(&v2).unwrap();
    assert_eq!(roving::json::to_json(doc.root()).unwrap(), "[1,2]");
    let v1 = hex("525601 3002 0102 1c 10 1c");
    let err = Document::open(&v1).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::UnknownTag(0x30));
    let lazy = Document::open_lazy(&v1).unwrap();
    assert!(lazy.root().is_null());
    assert_eq!(
        lazy.try_root().unwrap_err().kind(),
        &ErrorKind::UnknownTag(0x30)
    );
    // A decimal exponent out of range.
    let bad = hex("525602 3a01 17 01000000 1c 1c 1c");
    assert_eq!(
        Document::open(&bad).unwrap_err().kind(),
        &ErrorKind::NonCanonical
    );
    let lazy = Document::open_lazy(&bad).unwrap();
    assert!(lazy.root().is_null());
    assert_eq!(
        lazy.try_root().unwrap_err().kind(),
        &ErrorKind::NonCanonical
    );
}

/// Each element of an `f64` number array reads through serde, into any
/// type, as the same float read alone (`from_value` of `Value::Float`)
/// does: the value, or an error at the element's path.
mod f64_elements_read_as_floats {
    use super::*;
    use proptest::prelude::*;
    use serde::de::DeserializeOwned;
    use serde::Deserialize;
    use std::fmt::Debug;

    #[derive(Deserialize, PartialEq, Debug)]
    struct Meters(f64);

    #[derive(Deserialize, PartialEq, Debug)]
    enum Unit {
        A,
    }

    /// `from_slice` of the pair `[x, x]` against `from_value` of `x`.
    fn same_as_alone<T: DeserializeOwned + PartialEq + Debug>(bytes: &[u8], x: f64) {
        let alone = roving::from_value::<T>(Value::Float(x));
        match (roving::from_slice::<Vec<T>>(bytes), alone) {
            (Ok(pair), Ok(one)) => {
                assert_eq!(pair.len(), 2);
                assert!(pair.iter().all(|p| format!("{p:?}") == format!("{one:?}")));
            }
            (Err(e), Err(one)) => {
                assert_eq!(e.kind(), one.kind());
                assert!(e.to_string().contains("[0]"), "{e}");
            }
            (a, b) => panic!("{x:?}: {a:?} against {b:?}"),
        }
    }

    proptest! {
        #[test]
        fn any_float(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            let bytes = roving::to_vec(&vec![x, x]).unwrap();
            let doc = Document::open(&bytes).unwrap();
            let packed = doc.root().as_array().unwrap().numbers().map(|n| n.elem());
            prop_assume!(packed == Some(NumElem::Binary(ElemType::F64)));
            same_as_alone::<f64>(&bytes, x);
            same_as_alone::<f32>(&bytes, x);
            same_as_alone::<Option<f64>>(&bytes, x);
            same_as_alone::<Meters>(&bytes, x);
            same_as_alone::<i64>(&bytes, x);
            same_as_alone::<String>(&bytes, x);
            same_as_alone::<Vec<f64>>(&bytes, x);
            same_as_alone::<Unit>(&bytes, x);
            same_as_alone::<serde::de::IgnoredAny>(&bytes, x);
        }
    }
}

fn hex(s: &str) -> Vec<u8> {
    common::neutral::unhex(&s.replace(' ', ""))
}
