//! Writing documents by hand with `Encoder`'s calls: maps, timestamps,
//! vectors and reused subtrees with one encoder reused between documents,
//! one encoding per big integer, and the calls it refuses.

use roving::{Document, Encoder, ErrorKind, Timestamp, Value};

/// (3) Build documents by hand, reusing one encoder.
#[test]
fn build_by_hand_with_a_reused_encoder() -> Result<(), roving::Error> {
    let mut enc = Encoder::new();
    let mut out = Vec::new();
    for i in 0..3i64 {
        enc.begin_map()?;
        enc.key("id")?;
        enc.i64(i)?;
        enc.key("when")?;
        enc.timestamp("2024-05-01T12:00:00.250+02:00".parse()?)?;
        enc.key("embedding")?;
        enc.vector(&[0.25f32, -1.0, 2.5])?;
        enc.key("labels")?;
        enc.begin_array()?;
        enc.str("x")?;
        enc.end_array()?;
        let labels = enc.mark().unwrap();
        enc.key("labels_again")?;
        enc.reuse(labels)?;
        enc.end_map()?;
        out.push(enc.finish_reset()?);
    }
    assert_eq!(out[0].len(), out[2].len());
    let doc = Document::open(&out[2])?;
    let root = doc.root();
    assert!(root.get("id").unwrap() == 2);
    let v = root.get("embedding").and_then(|v| v.as_vector()).unwrap();
    assert_eq!(v.to_vec::<f32>(), Some(vec![0.25, -1.0, 2.5]));
    assert_eq!(v.iter().len(), 3);
    assert!(root.get("labels").unwrap() == root.get("labels_again").unwrap());
    assert_eq!(
        roving::json::to_json(root)?,
        r#"{"id":2,"when":"2024-05-01T12:00:00.250+02:00","embedding":[0.25,-1.0,2.5],"labels":["x"],"labels_again":["x"]}"#
    );

    // Misuse is an error, and reset makes the encoder usable again.
    enc.begin_map()?;
    assert_eq!(
        enc.str("no key").unwrap_err().kind(),
        &roving::ErrorKind::EncoderState
    );
    enc.reset();
    enc.null()?;
    assert!(Document::open(&enc.finish_reset()?)?.root().is_null());
    Ok(())
}

/// `Encoder::bigint_le` ignores high zero bytes and writes values that fit
/// 64 bits as 64-bit integers, so that each integer has one encoding.
#[test]
fn encoder_big_integers_have_one_encoding() {
    let root = |negative: bool, mag: &[u8]| {
        let mut e = Encoder::new();
        e.bigint_le(negative, mag).unwrap();
        e.finish().unwrap()
    };
    let same = |a: Vec<u8>, b: Vec<u8>| assert_eq!(a, b);
    let mut i = Encoder::new();
    i.i64(1).unwrap();
    same(
        root(false, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        i.finish().unwrap(),
    );
    let mut i = Encoder::new();
    i.i64(i64::MIN).unwrap();
    same(root(true, &(1u64 << 63).to_le_bytes()), i.finish().unwrap());
    let mut i = Encoder::new();
    i.u64(u64::MAX).unwrap();
    same(root(false, &[0xFF; 8]), i.finish().unwrap());
    let neg = root(true, &((1u64 << 63) + 1).to_le_bytes());
    assert!(matches!(
        Document::open(&neg).unwrap().root(),
        Value::BigInt(b) if b.negative && b.magnitude.len() == 8
    ));
    let mut i = Encoder::new();
    i.i64(0).unwrap();
    same(root(true, &[0, 0]), i.finish().unwrap());
}

/// Encoder calls documented to fail: a timestamp out of range, vector
/// bytes that are not whole elements (`Unsupported`); `is_empty` until a
/// value, even an inline one, or a container is written.
#[test]
fn encoder_refusals_and_emptiness() {
    let mut e = Encoder::new();
    assert!(e.is_empty());
    let bad = Timestamp {
        seconds: 0,
        nanos: 1_000_000_000,
        offset: None,
    };
    assert_eq!(
        e.timestamp(bad).unwrap_err().kind(),
        &ErrorKind::Unsupported
    );
    let bad = Timestamp {
        seconds: 0,
        nanos: 0,
        offset: Some(86_400),
    };
    assert_eq!(
        e.timestamp(bad).unwrap_err().kind(),
        &ErrorKind::Unsupported
    );
    let e2 = e.vector_raw(roving::ElemType::U16, &[1, 2, 3]).unwrap_err();
    assert_eq!(e2.kind(), &ErrorKind::Unsupported);
    assert!(e.is_empty());
    e.null().unwrap();
    assert!(!e.is_empty());
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    assert!(!e.is_empty());
    assert_eq!(e.end_array().unwrap_err().kind(), &ErrorKind::EncoderState);
    e.key("k").unwrap();
    assert_eq!(e.end_map().unwrap_err().kind(), &ErrorKind::EncoderState);
}

/// `empty_array` and `empty_map` write what opening and closing the
/// container writes, wherever a value goes (the root, an array, a map, a
/// map opened with its keys), and fail where opening one fails.
#[test]
fn empty_containers_in_one_step() -> Result<(), roving::Error> {
    // Writes, in each place a value goes, an empty array then an empty map.
    fn doc(e: &mut Encoder, one_step: bool) -> Result<Vec<u8>, roving::Error> {
        let empties = |e: &mut Encoder| -> Result<(), roving::Error> {
            if one_step {
                e.empty_array()?;
                e.empty_map()?;
            } else {
                e.begin_array()?;
                e.end_array()?;
                e.begin_map()?;
                e.end_map()?;
            }
            Ok(())
        };
        e.begin_array()?;
        empties(e)?;
        e.begin_map()?;
        for k in ["a", "b"] {
            e.key(k)?;
            if k == "a" {
                e.begin_array()?;
                e.end_array()?;
            } else {
                e.begin_map()?;
                e.end_map()?;
            }
        }
        e.end_map()?;
        e.begin_map_with_keys(&["x", "y"])?;
        empties(e)?;
        e.end_map()?;
        e.end_array()?;
        e.finish_reset()
    }
    let mut e = Encoder::new();
    assert_eq!(doc(&mut e, true)?, doc(&mut e, false)?);
    for one_step in [true, false] {
        let root = |e: &mut Encoder| {
            if one_step {
                e.empty_map().map(drop)
            } else {
                e.begin_map()?;
                e.end_map().map(drop)
            }
        };
        root(&mut e)?;
        let bytes = e.finish_reset()?;
        assert_eq!(
            Document::open(&bytes)?.root().as_map().map(|m| m.len()),
            Some(0)
        );
    }
    // The same refusals as opening a container there.
    e.begin_map()?;
    assert_eq!(
        e.empty_array().unwrap_err().kind(),
        &ErrorKind::EncoderState
    );
    assert_eq!(
        e.begin_array().unwrap_err().kind(),
        &ErrorKind::EncoderState
    );
    e.reset();
    e.empty_array()?;
    assert_eq!(e.empty_map().unwrap_err().kind(), &ErrorKind::EncoderState);
    e.reset();
    e.begin_map_with_keys(&["only"])?;
    e.empty_map()?;
    assert_eq!(
        e.empty_array().unwrap_err().kind(),
        &ErrorKind::EncoderState
    );
    e.reset();
    e.set_max_depth(2);
    e.begin_array()?;
    e.begin_array()?;
    assert_eq!(e.empty_array().unwrap_err().kind(), &ErrorKind::DepthLimit);
    assert_eq!(e.begin_array().unwrap_err().kind(), &ErrorKind::DepthLimit);
    e.empty_map().unwrap_err();
    Ok(())
}
