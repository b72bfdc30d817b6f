//! Stride array records (`3B`, format version 2): the encoder writes one
//! for an array of number arrays laid at equal steps (the rows of a
//! matrix, the points of a polygon), and every reader reads it as the
//! array of those rows.

mod common;

use common::record_kinds;
use proptest::prelude::*;
use roving::walk::{self, Kind, Slot};
use roving::{Document, Encoder, ErrorKind, Value};

/// Rows of floats as nested arrays, through the encoder's calls.
fn encode_rows(rows: &[Vec<f64>]) -> Vec<u8> {
    let rows: Vec<Vec<Num>> = rows
        .iter()
        .map(|r| r.iter().map(|&x| Num::Float(x)).collect())
        .collect();
    encode_num_rows(&rows)
}

/// The rows read back through every way of reading an array.
fn read_rows(bytes: &[u8]) -> Vec<Vec<f64>> {
    let doc = Document::open(bytes).unwrap();
    let outer = doc.root().as_array().unwrap();
    let lazy = Document::open_lazy(bytes).unwrap();
    let lazy_outer = lazy.root().as_array().unwrap();
    let slots = outer.slots();
    assert_eq!(slots.len(), outer.len());
    let mut rows = Vec::new();
    for (i, row) in outer.iter().enumerate() {
        let get = outer.get(i).unwrap();
        let by_slots = slots.value(i).unwrap();
        let lazy_row = lazy_outer.try_get(i).unwrap().unwrap();
        let read = |v: Value<'_>| -> Vec<f64> {
            let a = v.as_array().unwrap();
            a.iter().map(|x| x.as_f64().unwrap()).collect()
        };
        let r = read(row);
        assert_eq!(read(get), r);
        assert_eq!(read(by_slots), r);
        assert_eq!(read(lazy_row), r);
        rows.push(r);
    }
    assert_eq!(outer.iter().rev().count(), rows.len());
    rows
}

/// A polygon of f64 points is a stride array of f64 number arrays: 18
/// bytes a point, no slot per point.
#[test]
fn points_of_a_polygon_take_no_slots() {
    let ring: Vec<Vec<f64>> = (0..1000)
        .map(|i| {
            vec![
                -65.613_616_999_999_98 + i as f64 * 1e-5,
                43.420_273_000_000_01 - i as f64 * 1e-5,
            ]
        })
        .collect();
    let bytes = encode_rows(&ring);
    assert_eq!(bytes[2], 2, "version 2");
    let k = record_kinds(&bytes);
    assert_eq!(k.len(), 1002);
    assert!(k[..1000].iter().all(|&k| k == Kind::NumArray));
    assert_eq!(k[1000..], [Kind::StrideArray, Kind::Root]);
    // Header, 1000 rows of 18 bytes, `3B` + 2-byte count + 1-byte
    // stride, a root of one 1-byte slot.
    assert_eq!(bytes.len(), 3 + 1000 * 18 + 4 + 3);
    assert_eq!(read_rows(&bytes), ring);
    // The same bytes through serde and through JSON.
    let pairs: Vec<(f64, f64)> = ring.iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(roving::to_vec(&pairs).unwrap(), bytes);
    assert_eq!(
        roving::from_slice::<Vec<(f64, f64)>>(&bytes).unwrap(),
        pairs
    );
    let json = serde_json::to_vec(&ring).unwrap();
    assert_eq!(roving::json::from_json(&json).unwrap(), bytes);
}

/// A row of floats after an f64 row of as many elements is written as
/// f64 too, whatever its own values would take alone (f32, decimal), so
/// that the rows keep one size; a row of another length, or the first
/// row, chooses for itself.
#[test]
fn rows_after_an_f64_row_are_f64() {
    let rows = vec![
        vec![0.123_456_789_012_345_67, 1.0],
        vec![0.5, 1.5],  // f32 alone
        vec![0.1, 0.25], // decimal alone
    ];
    let bytes = encode_rows(&rows);
    assert_eq!(
        record_kinds(&bytes),
        [
            Kind::NumArray,
            Kind::NumArray,
            Kind::NumArray,
            Kind::StrideArray,
            Kind::Root
        ]
    );
    assert_eq!(bytes.len(), 3 + 3 * 18 + 3 + 3);
    assert_eq!(read_rows(&bytes), rows);
    // Alone, or after a row of another length, [0.5, 1.5] is f32 (10 bytes).
    for rows in [
        vec![vec![0.5, 1.5]],
        vec![vec![0.1, 0.2, 0.3], vec![0.5, 1.5]],
    ] {
        let bytes = encode_rows(&rows);
        let doc = Document::open(&bytes).unwrap();
        let last = walk::records(&doc)
            .unwrap()
            .map(|r| r.unwrap())
            .filter(|r| r.kind() == Kind::NumArray)
            .last()
            .unwrap();
        assert_eq!(last.encoding(), "numbers<f32>");
        assert_eq!(read_rows(&bytes), rows);
    }
}

/// Arrays whose elements are not number arrays at equal steps keep their
/// slots: rows of two sizes, a row with an integer among floats, a row
/// written twice (a shared record), one row.
#[test]
fn other_arrays_keep_their_slots() {
    let mixed = roving::json::from_json(b"[[1.5,2.5],[1,2.5],[3.5,4.5]]").unwrap();
    let sizes = roving::json::from_json(b"[[1,2],[300,4]]").unwrap();
    let one = roving::json::from_json(b"[[1,2]]").unwrap();
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    let m = e.array_f64(&[0.5, 1.5]).unwrap();
    e.reuse(m).unwrap();
    e.end_array().unwrap();
    let shared = e.finish().unwrap();
    for bytes in [mixed, sizes, one, shared] {
        assert!(
            !record_kinds(&bytes).contains(&Kind::StrideArray),
            "{bytes:02x?}"
        );
    }
}

/// The walk gives a stride array's elements as references, and its label.
#[test]
fn walk_gives_references_to_the_elements() {
    let bytes = roving::json::from_json(b"[[1,2],[3,4]]").unwrap();
    assert_eq!(
        hex(&bytes),
        "52560230020102300203043b02041c0c1c",
        "FORMAT.md section 6.16's example"
    );
    let doc = Document::open(&bytes).unwrap();
    let stride = walk::record_at(&doc, 11).unwrap();
    assert_eq!(stride.kind(), Kind::StrideArray);
    assert_eq!(stride.encoding(), "stride array");
    assert_eq!(stride.len(), 3);
    assert!(stride.value().is_none());
    assert_eq!(
        stride.slots().collect::<Vec<_>>(),
        [Slot::Ref(3), Slot::Ref(7)]
    );
    assert_eq!(stride.slots().size_hint(), (2, Some(2)));
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A document copied value by value keeps its bytes.
#[test]
fn copying_a_document_keeps_its_bytes() {
    let bytes =
        roving::json::from_json(br#"{"p":[[0.5,1.5],[2.5,3.5]],"q":[[1,2],[3,4],[5,6]]}"#).unwrap();
    assert!(record_kinds(&bytes).contains(&Kind::StrideArray));
    let doc = Document::open(&bytes).unwrap();
    let mut e = Encoder::new();
    e.write_value(doc.root()).unwrap();
    assert_eq!(e.finish().unwrap(), bytes);
}

/// A damaged stride array in a lazily opened document: every read is
/// an error or `Null`, never a panic; validation gives the rule's kind.
#[test]
fn damaged_stride_arrays_read_lazily() {
    let cases: [(&str, ErrorKind); 4] = [
        // Its element inside a string record.
        ("5256020c036162633b01031c0c1c", ErrorKind::BadReference),
        // Its element is a shape.
        ("52560218003b01021c0c1c", ErrorKind::BadReference),
        // Its elements before the header.
        ("52560281613b02021c0c1c", ErrorKind::BadReference),
        // A stride of 0.
        ("52560281613b01001c0c1c", ErrorKind::BadLength),
    ];
    for (h, kind) in cases {
        let bytes: Vec<u8> = (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect();
        assert_eq!(roving::validate(&bytes).unwrap_err().kind(), &kind, "{h}");
        let doc = Document::open_lazy(&bytes).unwrap();
        let root = doc.root();
        if let Some(a) = root.as_array() {
            for i in 0..a.len() {
                assert!(a.try_get(i).is_err(), "{h}: element {i}");
                let _ = a.get(i);
            }
            let _ = a.iter().count();
        } else {
            // A header that does not decode reads as no value at all.
            assert!(root.is_null(), "{h}");
        }
    }
}

/// A number of a matrix row: JSON writers print whole floats as integers.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i64),
    Float(f64),
}

/// Rows of integers and floats as nested arrays, through the encoder's
/// calls.
fn encode_num_rows(rows: &[Vec<Num>]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    for row in rows {
        e.begin_array().unwrap();
        for &x in row {
            match x {
                Num::Int(v) => e.i64(v).unwrap(),
                Num::Float(v) => e.f64(v).unwrap(),
            }
        }
        e.end_array().unwrap();
    }
    e.end_array().unwrap();
    e.finish().unwrap()
}

/// The rows of integers and floats read back (floats by their bits), by
/// index and by iteration, eagerly and lazily.
fn read_num_rows(bytes: &[u8]) -> Vec<Vec<Num>> {
    let num = |v: Value<'_>| match v {
        Value::Int(i) => Num::Int(i),
        Value::Float(f) => Num::Float(f),
        other => panic!("not a number: {other:?}"),
    };
    let doc = Document::open(bytes).unwrap();
    let outer = doc.root().as_array().unwrap();
    let lazy = Document::open_lazy(bytes).unwrap();
    let lazy_outer = lazy.root().as_array().unwrap();
    let rows: Vec<Vec<Num>> = outer
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(num).collect())
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let lazy_row = lazy_outer.try_get(i).unwrap().unwrap();
        let lazy_row: Vec<Num> = lazy_row.as_array().unwrap().iter().map(num).collect();
        assert_eq!(&lazy_row, row);
    }
    rows
}

/// A polygon whose points hold a few whole numbers among their floats
/// (`[-125, 69.7]`, as JSON writers print `-125.0`) is still a stride
/// array: those points are array records of 8-byte slots, as long as an
/// f64 point, after which the float records they refer to are moved in
/// front of the points.
#[test]
fn rows_with_integers_among_floats_take_no_slots() {
    let mut ring: Vec<Vec<Num>> = (0..1000)
        .map(|i| {
            vec![
                Num::Float(-65.613_616_999_999_98 + i as f64 * 1e-5),
                Num::Float(43.420_273_000_000_01 - i as f64 * 1e-5),
            ]
        })
        .collect();
    // Two points in a row on a meridian, one on a parallel, the first and
    // the last, and an integer too wide for a slot (its own record).
    ring[10][0] = Num::Int(-125);
    ring[11][0] = Num::Int(-125);
    ring[500][1] = Num::Int(47);
    ring[0][1] = Num::Int(3);
    ring[999][0] = Num::Int(1 << 62);
    let bytes = encode_num_rows(&ring);
    roving::validate(&bytes).unwrap();
    let kinds = record_kinds(&bytes);
    assert_eq!(kinds[kinds.len() - 2..], [Kind::StrideArray, Kind::Root]);
    // Header; the records of the five rows' floats and of the integer
    // too wide for an 8-byte slot (9 bytes each); 1000 rows of 18 bytes;
    // `3B` + 2-byte count + 1-byte stride; a root of one 1-byte slot. (The
    // three small integers are inline in their rows' 2-byte slots at
    // first: an `i8` record each would save no byte.)
    assert_eq!(bytes.len(), 3 + 6 * 9 + 1000 * 18 + 4 + 3);
    assert_eq!(read_num_rows(&bytes), ring);
    // The same bytes from JSON.
    let json: Vec<serde_json::Value> = ring
        .iter()
        .map(|r| {
            r.iter()
                .map(|x| match *x {
                    Num::Int(v) => serde_json::Value::from(v),
                    Num::Float(v) => serde_json::Value::from(v),
                })
                .collect()
        })
        .collect();
    let json = serde_json::to_vec(&json).unwrap();
    assert_eq!(roving::json::from_json(&json).unwrap(), bytes);
}

/// When the rows with integers are so many that their 8-byte slots cost
/// more than the array's slots save, the array keeps its slots: rows of
/// an integer and a float after one f64 row.
#[test]
fn mostly_mixed_rows_keep_their_slots() {
    let mut rows = vec![vec![Num::Float(0.123_456_789_012_345_67), Num::Float(1.5)]];
    rows.extend((0..200).map(|i| vec![Num::Int(i), Num::Float(0.5 + i as f64)]));
    let bytes = encode_num_rows(&rows);
    roving::validate(&bytes).unwrap();
    assert!(!record_kinds(&bytes).contains(&Kind::StrideArray));
    assert_eq!(read_num_rows(&bytes), rows);
}

/// A row that a mark holds is not moved: the matrix keeps its slots, and
/// the mark's value is still the row.
#[test]
fn a_marked_row_is_not_moved() {
    let mut e = Encoder::new();
    e.begin_array().unwrap();
    e.begin_array().unwrap();
    let mut mark = None;
    for i in 0..100 {
        let x = 0.123_456_789_012_345_67 + i as f64;
        e.begin_array().unwrap();
        if i == 50 {
            e.i64(7).unwrap();
        } else {
            e.f64(x).unwrap();
        }
        e.f64(x).unwrap();
        e.end_array().unwrap();
        if i == 20 {
            mark = e.mark();
        }
    }
    e.end_array().unwrap();
    e.reuse(mark.unwrap()).unwrap();
    e.end_array().unwrap();
    let bytes = e.finish().unwrap();
    roving::validate(&bytes).unwrap();
    assert!(!record_kinds(&bytes).contains(&Kind::StrideArray));
    let doc = Document::open(&bytes).unwrap();
    let root = doc.root().as_array().unwrap();
    let matrix = root.get(0).unwrap().as_array().unwrap();
    assert_eq!(matrix.get(20), root.get(1));
    assert_eq!(
        matrix.get(50).unwrap().as_array().unwrap().get(0),
        Some(Value::Int(7))
    );
}

fn num() -> impl Strategy<Value = Num> {
    prop_oneof![
        6 => any::<f64>().prop_map(Num::Float),
        1 => any::<i64>().prop_map(Num::Int),
        1 => (-200i64..200).prop_map(Num::Int),
    ]
}

fn num_row(len: usize) -> impl Strategy<Value = Vec<Num>> {
    prop::collection::vec(num(), len)
}

fn row() -> impl Strategy<Value = Vec<f64>> {
    prop_oneof![
        // Mostly pairs, as coordinates are.
        4 => (any::<f64>(), any::<f64>()).prop_map(|(a, b)| vec![a, b]),
        1 => prop::collection::vec(any::<f64>(), 1..4),
        1 => prop::collection::vec((-1000i32..1000).prop_map(|m| m as f64 / 8.0), 1..3),
    ]
}

proptest! {
    /// Any rows of floats read back bit for bit through every reader
    /// (NaN payloads included), whichever of them the encoder strides.
    #[test]
    fn rows_round_trip(rows in prop::collection::vec(row(), 0..40)) {
        let bytes = encode_rows(&rows);
        roving::validate(&bytes).unwrap();
        let back = read_rows(&bytes);
        prop_assert_eq!(back.len(), rows.len());
        for (a, b) in back.iter().zip(&rows) {
            let bits = |r: &Vec<f64>| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(a), bits(b));
        }
        let typed: Vec<Vec<f64>> = roving::from_slice(&bytes).unwrap();
        prop_assert_eq!(typed.len(), rows.len());
    }

    /// Rows of integers and floats (mostly of one length and mostly
    /// floats, so that many matrices are strided, some with rows laid out
    /// again) read back as written, integers as integers
    /// and floats bit for bit, whichever layout the encoder chose.
    #[test]
    fn rows_of_integers_and_floats_round_trip(
        rows in (1usize..4).prop_flat_map(|len| prop::collection::vec(
            prop_oneof![
                24 => prop::collection::vec(any::<f64>().prop_map(Num::Float), len),
                2 => num_row(len),
                1 => prop::collection::vec(num(), 0..5),
            ], 0..120))
    ) {
        let bytes = encode_num_rows(&rows);
        roving::validate(&bytes).unwrap();
        let back = read_num_rows(&bytes);
        let bits = |r: &Vec<Num>| r.iter().map(|x| match *x {
            Num::Int(v) => (0, v as u64),
            Num::Float(v) => (1, v.to_bits()),
        }).collect::<Vec<_>>();
        prop_assert_eq!(back.len(), rows.len());
        for (a, b) in back.iter().zip(&rows) {
            prop_assert_eq!(bits(a), bits(b));
        }
    }

    /// serde (which writes an array of floats only in one step, as
    /// `Encoder::array_f64` does) and `Encoder::array_f64` itself give
    /// the bytes of an `Encoder::f64` call per element.
    #[test]
    fn rows_in_one_step_are_the_same_bytes(rows in prop::collection::vec(row(), 0..40)) {
        let bytes = encode_rows(&rows);
        prop_assert_eq!(roving::to_vec(&rows).unwrap(), bytes.clone());
        let mut e = Encoder::new();
        e.begin_array().unwrap();
        for row in &rows {
            e.array_f64(row).unwrap();
        }
        e.end_array().unwrap();
        prop_assert_eq!(e.finish().unwrap(), bytes);
    }
}

/// The shape that would make validation quadratic if stride arrays could
/// be elements of stride arrays: many small stride arrays, each taking all
/// the records before it (the stride arrays before it included) as
/// elements. Each record may lie in one stride array's span only, so the
/// second one is rejected.
#[test]
fn stride_arrays_over_stride_arrays_are_rejected() {
    // 3-byte rows `30 01 xx`, then stride arrays `3B n 03` of 3 bytes too.
    let mut doc = vec![b'R', b'V', 2];
    for i in 0..100u8 {
        doc.extend_from_slice(&[0x30, 0x01, i]);
    }
    let first_stride = doc.len();
    for n in 100..103u8 {
        doc.extend_from_slice(&[0x3B, n, 0x03]);
    }
    // Root: the last stride array, 3 bytes back.
    doc.extend_from_slice(&[0x1C, 3 << 2, 0x1C]);
    let err = roving::validate(&doc).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BadReference);
    assert_eq!(err.offset(), Some(first_stride as u64 + 3 + 1), "{err}");
    // Without the later ones, the first is valid: 100 rows.
    let mut ok = doc[..first_stride + 3].to_vec();
    ok.extend_from_slice(&[0x1C, 3 << 2, 0x1C]);
    let d = Document::open(&ok).unwrap();
    assert_eq!(d.root().as_array().unwrap().len(), 100);
}
