//! Shaped vectors (record `23`, format version 2): a typed numeric vector
//! of two or more dimensions, row-major. Written by the encoder, read in
//! place with its shape, shown as nested arrays in JSON and serde, copied,
//! compared, walked; malformed ones rejected by every way of opening.

use roving::walk::{self, Kind};
use roving::{Document, ElemType, Encoder, ErrorKind, Value};

fn shaped<T: roving::read::VectorElement>(shape: &[usize], data: &[T]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.shaped_vector(shape, data).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_shaped_vector_reads_back_with_its_shape() {
    let bytes = shaped(&[2, 3], &[1.5f64, 2.5, 3.5, 4.5, 5.5, 6.5]);
    assert_eq!(&bytes[..3], b"RV\x02", "a version 2 document");
    let doc = Document::open(&bytes).unwrap();
    let v = doc.root().as_vector().unwrap();
    assert_eq!(v.elem_type(), ElemType::F64);
    assert_eq!(v.shape(), [2, 3]);
    assert_eq!(v.ndim(), 2);
    assert_eq!(v.len(), 6);
    assert_eq!(v.get_f64(4), Some(5.5));
    assert_eq!(v.to_vec::<f64>().unwrap(), [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
    assert_eq!(v.offset(), 3);
    // The data is aligned to the element size from the document start.
    let at = v.raw().as_ptr() as usize - bytes.as_ptr() as usize;
    assert_eq!(at % 8, 0);
    assert_eq!(
        roving::json::to_json(doc.root()).unwrap(),
        "[[1.5,2.5,3.5],[4.5,5.5,6.5]]"
    );
    assert_eq!(
        roving::json::to_json_pretty(doc.root(), 1).unwrap(),
        "[\n [\n  1.5,\n  2.5,\n  3.5\n ],\n [\n  4.5,\n  5.5,\n  6.5\n ]\n]"
    );
    // A vector of one dimension has the shape [len].
    let mut e = Encoder::new();
    e.vector(&[1u8, 2, 3]).unwrap();
    let one = e.finish().unwrap();
    assert_eq!(one[2], 1, "a vector record needs no version 2");
    let one = Document::open(&one).unwrap();
    let w = one.root().as_vector().unwrap();
    assert_eq!((w.shape(), w.ndim()), (vec![3], 1));
    assert!(format!("{v:?}").contains("shape: [2, 3]"), "{v:?}");
}

#[test]
fn every_element_type_and_empty_dimensions_round_trip() {
    let shapes: &[&[usize]] = &[
        &[2, 2],
        &[0, 3],
        &[3, 0],
        &[1, 1, 1],
        &[2, 0, 5],
        &[2, 3, 2],
    ];
    for shape in shapes {
        let n: usize = shape.iter().product();
        let mut e = Encoder::new();
        e.begin_array().unwrap();
        e.vector(&[7u8]).unwrap(); // other alignments before the data
        e.shaped_vector(shape, &(0..n as i8).collect::<Vec<i8>>())
            .unwrap();
        e.shaped_vector(shape, &(0..n as u16).collect::<Vec<u16>>())
            .unwrap();
        e.shaped_vector(shape, &(0..n as i32).map(|x| -x).collect::<Vec<_>>())
            .unwrap();
        e.shaped_vector(shape, &(0..n as u64).collect::<Vec<u64>>())
            .unwrap();
        e.shaped_vector(shape, &(0..n).map(|x| x as f32 / 4.0).collect::<Vec<_>>())
            .unwrap();
        e.end_array().unwrap();
        let bytes = e.finish().unwrap();
        roving::validate(&bytes).unwrap();
        let doc = Document::open(&bytes).unwrap();
        let items: Vec<Value<'_>> = doc.root().as_array().unwrap().iter().collect();
        for v in &items[1..] {
            let v = v.as_vector().unwrap();
            assert_eq!(v.shape(), *shape);
            assert_eq!(v.len(), n);
            let at = v.raw().as_ptr() as usize - bytes.as_ptr() as usize;
            assert_eq!(at % v.elem_type().size(), 0);
        }
        // Copying keeps the shape, and the copy is equal.
        let mut e = Encoder::new();
        e.write_value(doc.root()).unwrap();
        let copy = e.finish().unwrap();
        assert_eq!(copy, bytes);
        assert_eq!(Document::open(&copy).unwrap().root(), doc.root());
        // JSON: nested arrays; through JSON they come back as arrays.
        let json = roving::json::to_json(doc.root()).unwrap();
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        let mut dims = vec![];
        let mut x = &back[1];
        while let Some(a) = x.as_array() {
            dims.push(a.len());
            match a.first() {
                Some(y) => x = y,
                None => break,
            }
        }
        assert_eq!(dims[..], shape[..dims.len()], "{json}");
    }
}

#[test]
fn shapes_tell_vectors_apart() {
    let a = shaped(&[2, 3], &[1i32, 2, 3, 4, 5, 6]);
    let b = shaped(&[3, 2], &[1i32, 2, 3, 4, 5, 6]);
    let mut e = Encoder::new();
    e.vector(&[1i32, 2, 3, 4, 5, 6]).unwrap();
    let c = e.finish().unwrap();
    let (a, b, c) = (
        Document::open(&a).unwrap(),
        Document::open(&b).unwrap(),
        Document::open(&c).unwrap(),
    );
    assert_ne!(a.root(), b.root());
    assert_ne!(a.root(), c.root());
    assert_eq!(a.root(), a.root());
}

#[test]
fn serde_sees_nested_sequences() {
    let bytes = shaped(&[2, 2], &[1.0f32, 2.0, 3.0, 4.5]);
    let v: Vec<Vec<f32>> = roving::from_slice(&bytes).unwrap();
    assert_eq!(v, [[1.0, 2.0], [3.0, 4.5]]);
    let v: [[f64; 2]; 2] = roving::from_slice(&bytes).unwrap();
    assert_eq!(v, [[1.0, 2.0], [3.0, 4.5]]);
    let any: serde_json::Value = roving::from_slice(&bytes).unwrap();
    assert_eq!(any, serde_json::json!([[1.0, 2.0], [3.0, 4.5]]));
    // A shorter type is an error, as for arrays.
    let e = roving::from_slice::<[[f32; 1]; 2]>(&bytes).unwrap_err();
    assert!(e.to_string().contains("$[0]"), "{e}");
    // Serialize: nested sequences too.
    let doc = Document::open(&bytes).unwrap();
    let j = serde_json::to_string(&doc.root()).unwrap();
    assert_eq!(j, "[[1.0,2.0],[3.0,4.5]]");
    let three = shaped(&[2, 1, 2], &[1u8, 2, 3, 4]);
    let v: Vec<Vec<Vec<u8>>> = roving::from_slice(&three).unwrap();
    assert_eq!(v, [[[1, 2]], [[3, 4]]]);
}

#[test]
fn walk_and_stats_see_a_vector() {
    let bytes = shaped(&[2, 2], &[1u16, 2, 3, 4]);
    let doc = Document::open(&bytes).unwrap();
    let recs: Vec<_> = walk::records(&doc)
        .unwrap()
        .collect::<roving::Result<Vec<_>>>()
        .unwrap();
    assert_eq!(recs[0].kind(), Kind::Vector);
    assert_eq!(recs[0].encoding(), "shaped vector<u16>");
    assert_eq!(recs[0].end(), recs[1].offset());
    assert_eq!(
        recs[0].value().unwrap().as_vector().unwrap().shape(),
        [2, 2]
    );
}

#[test]
fn the_encoder_refuses_bad_shapes() {
    let mut e = Encoder::new();
    assert!(e.shaped_vector(&[4], &[1u8, 2, 3, 4]).is_err());
    let mut e = Encoder::new();
    assert!(e.shaped_vector(&[2, 3], &[1u8, 2, 3, 4]).is_err());
    let mut e = Encoder::new();
    assert!(e.shaped_vector(&[usize::MAX, 2], &[0u8; 0]).is_err());
    let mut e = Encoder::new();
    assert!(e.shaped_vector(&[1; 65], &[1u8]).is_err());
    let mut e = Encoder::new();
    e.shaped_vector(&[1; 64], &[1u8]).unwrap();
    Document::open(&e.finish().unwrap()).unwrap();
    // Without elements: at most 4096 rows before the first 0.
    let mut e = Encoder::new();
    assert!(e.shaped_vector(&[4097, 0], &[0u8; 0]).is_err());
    let mut e = Encoder::new();
    assert!(e.shaped_vector(&[64, 65, 0, 9], &[0u8; 0]).is_err());
    for shape in [&[4096, 0][..], &[64, 64, 0, 1 << 40], &[0, 1 << 40]] {
        let mut e = Encoder::new();
        e.shaped_vector(shape, &[0u8; 0]).unwrap();
        let bytes = e.finish().unwrap();
        let doc = Document::open(&bytes).unwrap();
        assert_eq!(doc.root().as_vector().unwrap().shape(), shape);
    }
}

/// A shaped vector without elements stands for empty arrays, as many as
/// its rows: a few bytes of shape must not stand for millions of them.
#[test]
fn empty_shaped_vectors_have_few_rows() {
    let mut e = Encoder::new();
    e.shaped_vector(&[4096, 1, 0], &[0u16; 0]).unwrap();
    let mut bad = e.finish().unwrap();
    // 52 56 02 | 23 03 03 80 20 01 00 | ...: 4096 is `80 20`; make it 4097.
    assert_eq!(bad[6..8], [0x80, 0x20]);
    bad[6] = 0x81;
    assert_eq!(rejected(&bad), ErrorKind::BadLength);
    // The fuzz finding: 2,000,000 x 248 x 0, lazily read into nested
    // sequences, took seconds before this bound.
    let bomb = [
        0x52, 0x56, 0x02, 0x23, 0x03, 0x03, 0xfb, 0xfe, 0x7d, 0xf8, 0x01, 0x00, 0x1c, 0x24, 0x1c,
    ];
    assert_eq!(rejected(&bomb), ErrorKind::BadLength);
}

/// The kind of error of `bytes` by every way of opening: validation, and
/// reading the root of a lazily opened document (the same kind).
fn rejected(bytes: &[u8]) -> ErrorKind {
    let e = roving::validate(bytes).unwrap_err();
    let lazy = Document::open_lazy(bytes).and_then(|d| d.try_root().map(|_| ()));
    let Err(lazy) = lazy else {
        panic!("lazy open accepted {bytes:02x?}")
    };
    assert!(
        lazy.kind() == e.kind() || *e.kind() == ErrorKind::BadTrailer,
        "{lazy} / {e}"
    );
    e.kind().clone()
}

#[test]
fn malformed_shaped_vectors_are_rejected() {
    let good = shaped(&[2, 1, 2], &[1u16, 2, 3, 4]);
    // 52 56 02 | 23 03 03 02 01 02 00 | 01 00 02 00 03 00 04 00 | 1c 1c 1c:
    // one byte of padding brings the data to offset 10.
    assert_eq!(good[3..10], [0x23, 0x03, 0x03, 0x02, 0x01, 0x02, 0x00]);
    roving::validate(&good).unwrap();
    // In a version 1 document.
    let mut v1 = good.clone();
    v1[2] = 1;
    assert_eq!(rejected(&v1), ErrorKind::UnknownTag(0x23));
    // An unknown element type.
    let mut bad = good.clone();
    bad[4] = 10;
    assert_eq!(rejected(&bad), ErrorKind::UnknownTag(10));
    // Nonzero padding.
    let mut bad = good.clone();
    bad[9] = 1;
    assert_eq!(rejected(&bad), ErrorKind::NonCanonical);
    // Fewer than 2 dimensions.
    for ndim in [0, 1] {
        let mut bad = good.clone();
        bad[5] = ndim;
        assert_eq!(rejected(&bad), ErrorKind::NonCanonical);
    }
    // More than 64.
    let mut bad = good.clone();
    bad[5] = 65;
    assert!(matches!(
        rejected(&bad),
        ErrorKind::BadLength | ErrorKind::Truncated
    ));
    // Data past the end.
    let mut bad = good.clone();
    bad[6] = 5;
    assert!(matches!(
        rejected(&bad),
        ErrorKind::Truncated | ErrorKind::BadLength | ErrorKind::BadTrailer
    ));
}
