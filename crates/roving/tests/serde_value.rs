//! `Value` implements `Serialize`: a value read in place goes into any
//! serde format, or into a type that other code serializes, with the
//! same text as the JSON writer for JSON, the same bytes as the original
//! for roving, and the converters' bounds (depth, expansion, a lazily
//! opened document validated first) as errors, never a crash or a hang.

mod common;

use roving::{Document, Encoder, Timestamp};

fn json_docs() -> Vec<Vec<u8>> {
    let mut docs: Vec<Vec<u8>> = [
        r#"null"#,
        r#"[1,-2,3.5,-0.0,1e300,"x","",true,false,null,[],{}]"#,
        r#"{"a":{"b":[{"c":1},{"c":2}],"d":"é\u0000\n\""},"u":18446744073709551615,"i":-9223372036854775808}"#,
        r#"{"big":123456789012345678901234567890,"neg":-170141183460469231731687303715884105728}"#,
    ]
    .iter()
    .map(|j| roving::json::from_json(j.as_bytes()).unwrap())
    .collect();
    let people = std::fs::read(common::repo_data("1000people.json")).unwrap();
    docs.push(roving::json::from_json(&people).unwrap());
    docs
}

#[test]
fn serde_json_writes_what_the_json_writer_writes() {
    for bytes in json_docs() {
        let doc = Document::open(&bytes).unwrap();
        let ours = roving::json::to_json(doc.root()).unwrap();
        let theirs = serde_json::to_string(&doc.root()).unwrap();
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&ours).unwrap(),
            serde_json::from_str(&theirs).unwrap(),
        );
        assert_eq!(a, b);
    }
}

#[test]
fn roving_reserializes_to_the_same_bytes() {
    for bytes in json_docs() {
        let doc = Document::open(&bytes).unwrap();
        assert_eq!(roving::to_vec(&doc.root()).unwrap(), bytes);
    }
}

#[test]
fn every_kind_has_a_serde_form() {
    let t = Timestamp::new(1_700_000_000, 0, Some(3600)).unwrap();
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    e.key("t").unwrap();
    e.timestamp(t).unwrap();
    e.key("b").unwrap();
    e.bytes(b"\x00\xff").unwrap();
    e.key("v").unwrap();
    e.vector(&[0.1f32, 2.0]).unwrap();
    e.key("w").unwrap();
    e.vector(&[u64::MAX]).unwrap();
    e.key("x").unwrap();
    e.ext(7, b"ab").unwrap();
    e.key("huge").unwrap();
    e.bigint(&(roving::num_bigint::BigInt::from(u128::MAX) * 10))
        .unwrap();
    e.end_map().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    assert_eq!(
        serde_json::to_string(&doc.root()).unwrap(),
        r#"{"t":"2023-11-14T23:13:20+01:00","b":[0,255],"v":[0.1,2.0],"w":[18446744073709551615],"x":[7,[97,98]],"huge":"3402823669209384634633746074317682114550"}"#
    );
    // Into roving: the timestamp stays a timestamp, the bytes bytes, the
    // f32 vector's elements the same f32s.
    let again = roving::to_vec(&doc.root()).unwrap();
    let d2 = Document::open(&again).unwrap();
    assert_eq!(d2.root().get("t").unwrap().as_timestamp(), Some(t));
    assert_eq!(
        d2.root().get("b").unwrap().as_bytes(),
        Some(&b"\x00\xff"[..])
    );
    let v: Vec<f32> = roving::from_value(d2.root().get("v").unwrap()).unwrap();
    assert_eq!(v, [0.1f32, 2.0]);
}

#[test]
fn a_part_serializes_inside_another_type() {
    #[derive(serde::Serialize)]
    struct Reply<'a> {
        status: u16,
        user: Option<roving::Value<'a>>,
    }
    let bytes = roving::json::from_json(br#"[{"name":"Ada"},{"name":"Grace"}]"#).unwrap();
    let doc = Document::open(&bytes).unwrap();
    let reply = Reply {
        status: 200,
        user: doc.get_path("[1]").unwrap(),
    };
    assert_eq!(
        serde_json::to_string(&reply).unwrap(),
        r#"{"status":200,"user":{"name":"Grace"}}"#
    );
}

/// 64 levels of arrays each holding the one below twice: 2^64 leaves in
/// a document of a few hundred bytes. Serializing it is an error, at once.
#[test]
fn shared_subtrees_cannot_expand_without_bound() {
    let mut e = Encoder::new();
    for _ in 0..64 {
        e.begin_array().unwrap();
    }
    e.i64(1).unwrap();
    for _ in 0..64 {
        let m = e.mark().unwrap();
        e.reuse(m).unwrap();
        e.end_array().unwrap();
    }
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    let err = serde_json::to_writer(std::io::sink(), &doc.root()).unwrap_err();
    assert!(err.to_string().contains("expansion limit"), "{err}");
    // (serde passes errors between serializers as text: the kind is Custom.)
    let err = roving::to_vec(&doc.root()).unwrap_err();
    assert!(
        err.to_string().starts_with("expansion limit exceeded"),
        "{err}"
    );
}

/// Deep values run on enough stack (a thread with a small stack here),
/// and past the depth limit of the converters serialization fails.
#[test]
fn deep_values_neither_overflow_nor_pass_the_depth_limit() {
    common::on_small_stack(|| {
        let deep = |n: usize| {
            let mut e = Encoder::new();
            e.set_max_depth(n + 1);
            for _ in 0..n {
                e.begin_array().unwrap();
            }
            for _ in 0..n {
                e.end_array().unwrap();
            }
            e.finish().unwrap()
        };
        let ok = deep(9_000);
        let doc = Document::open(&ok).unwrap();
        let mut json = serde_json::Serializer::new(Vec::new());
        serde::Serialize::serialize(&doc.root(), &mut json).unwrap();
        assert_eq!(json.into_inner().len(), 18_000);
        let too_deep = deep(10_001);
        let doc = Document::open(&too_deep).unwrap();
        let err = roving::to_vec(&doc.root()).unwrap_err();
        assert!(
            err.to_string().starts_with("nesting depth limit exceeded"),
            "{err}"
        );
        let err = serde_json::to_vec(&doc.root()).unwrap_err();
        assert!(
            err.to_string().starts_with("nesting depth limit exceeded"),
            "{err}"
        );
    });
}

/// A value of a lazily opened document is validated first: damage
/// anywhere in the document is an error, as for the other converters.
#[test]
fn a_lazily_opened_damaged_document_is_an_error() {
    let mut bytes = roving::json::from_json(br#"[{"a":"zzzz"},1]"#).unwrap();
    let at = bytes.windows(4).position(|w| w == b"zzzz").unwrap();
    bytes[at] = 0xff;
    let doc = Document::open_lazy(&bytes).unwrap();
    let err = serde_json::to_string(&doc.root()).unwrap_err();
    assert!(err.to_string().contains("UTF-8"), "{err}");
}

/// Into roving, every kind stays what it was: typed vectors of each
/// element type, extension values, integers past 128 bits, timestamps,
/// byte strings; the copy equals the original.
#[test]
fn roving_keeps_every_kind() {
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    e.key("i8").unwrap();
    e.vector(&[i8::MIN, -1, i8::MAX]).unwrap();
    e.key("u8").unwrap();
    e.vector(&[0u8, u8::MAX]).unwrap();
    e.key("i16").unwrap();
    e.vector(&[i16::MIN, i16::MAX]).unwrap();
    e.key("u16").unwrap();
    e.vector(&[u16::MAX]).unwrap();
    e.key("i32").unwrap();
    e.vector(&[i32::MIN, i32::MAX]).unwrap();
    e.key("u32").unwrap();
    e.vector(&[u32::MAX]).unwrap();
    e.key("i64").unwrap();
    e.vector(&[i64::MIN, i64::MAX]).unwrap();
    e.key("u64").unwrap();
    e.vector(&[0u64, u64::MAX]).unwrap();
    e.key("f32").unwrap();
    e.vector(&[0.1f32, f32::NAN, -0.0]).unwrap();
    e.key("f64").unwrap();
    e.vector(&[0.1f64, f64::INFINITY]).unwrap();
    e.key("empty").unwrap();
    e.vector::<u16>(&[]).unwrap();
    e.key("ext").unwrap();
    e.ext(u64::MAX, b"\x00payload").unwrap();
    e.key("huge").unwrap();
    let huge = -(roving::num_bigint::BigInt::from(u128::MAX) << 300usize);
    e.bigint(&huge).unwrap();
    e.key("i128").unwrap();
    e.i128(i128::MIN).unwrap();
    e.key("t").unwrap();
    e.timestamp(Timestamp::new(-5, 7, Some(-60)).unwrap())
        .unwrap();
    e.key("b").unwrap();
    e.bytes(b"\xff").unwrap();
    e.end_map().unwrap();
    let bytes = e.finish().unwrap();
    let doc = Document::open(&bytes).unwrap();
    let copy = roving::to_vec(&doc.root()).unwrap();
    let again = Document::open(&copy).unwrap();
    for (k, v) in doc.root().as_map().unwrap() {
        let w = again.root().get(k).unwrap();
        assert_eq!(v.type_name(), w.type_name(), "{k}");
        assert!(v == w, "{k}");
    }
    assert!(again.root() == doc.root());
    // A part of a document, copied into a document of its own.
    let part = roving::to_vec(&doc.root().get("f32").unwrap()).unwrap();
    let v = Document::open(&part).unwrap().root().as_vector().unwrap();
    assert_eq!(v.elem_type(), roving::ElemType::F32);
}
