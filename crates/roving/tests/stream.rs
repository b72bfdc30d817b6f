//! Record streams (`docs/FORMAT.md` section 24): the golden and reject
//! vectors of `tests/vectors/stream/`, the reader and the writer, and
//! property tests (any truncation point, any byte flip).
//!
//! `ROVING_WRITE_VECTORS=1 cargo test -p roving --test stream` regenerates
//! the vectors.

use std::path::PathBuf;

use proptest::prelude::*;
use roving::stream::{open_append, scan, Frame, Kind, Reader, TornTail, Writer};
use roving::{to_vec, Document, Error};
use serde_json::{json, Value as J};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/stream")
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// What a reader makes of a stream: its whole frames (kind, offset,
/// payload, and for a document its value as JSON text, read with the
/// stream's dictionary), then the torn tail or the first error (kind and
/// offset).
#[derive(Debug, PartialEq)]
struct Outcome {
    frames: Vec<(Kind, usize, Vec<u8>, Option<String>)>,
    torn: Option<TornTail>,
    error: Option<(String, u64)>,
}

fn kind_name(e: &Error) -> String {
    let k = format!("{:?}", e.kind());
    k.split('(').next().unwrap().to_string()
}

fn read_all(bytes: &[u8]) -> Outcome {
    let mut out = Outcome {
        frames: Vec::new(),
        torn: None,
        error: None,
    };
    let mut r = match Reader::new(bytes) {
        Ok(r) => r,
        Err(e) => {
            out.error = Some((kind_name(&e), e.offset().unwrap()));
            return out;
        }
    };
    let mut dicts = roving::stream::StreamDictionary::new();
    let mut step = |f: roving::Result<Frame<'_>>| -> roving::Result<_> {
        let f = f?;
        let json = match f.kind {
            Kind::Dictionary => {
                dicts.learn(&f)?;
                None
            }
            Kind::Document => Some(roving::json::to_json(dicts.open(&f)?.root())?),
        };
        Ok((f.kind, f.offset, f.payload.to_vec(), json))
    };
    for f in &mut r {
        match step(f) {
            Ok(frame) => out.frames.push(frame),
            Err(e) => {
                out.error = Some((kind_name(&e), e.offset().unwrap()));
                return out;
            }
        }
    }
    out.torn = r.torn_tail();
    out
}

fn doc(v: &J) -> Vec<u8> {
    to_vec(v).unwrap()
}

fn stream(frames: &[(Kind, Vec<u8>)]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new()).unwrap();
    for (k, p) in frames {
        w.write_frame(*k, p).unwrap();
    }
    w.into_inner().unwrap()
}

/// The vectors: name, description, bytes.
fn cases() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let d = Kind::Document;
    let one = doc(&json!(1));
    let map = doc(&json!({"Id": 100000, "Name": "Simple"}));
    let long = doc(&json!("x".repeat(40)));
    let three = stream(&[
        (d, one.clone()),
        (d, map.clone()),
        (d, doc(&json!([1, 2, 3]))),
    ]);
    let mut torn_head = three.clone();
    torn_head.push(0x81); // a two-byte head cut after its first byte
    let mut torn_payload = three.clone();
    torn_payload.extend_from_slice(&stream(&[(d, map.clone())])[5..][..9]);
    let mut zero_tail = three.clone();
    zero_tail.extend_from_slice(&[0; 7]);
    let mut zero_then_data = three.clone();
    zero_then_data.extend_from_slice(&[0, 0, 1]);
    let mut bad_payload = stream(&[(d, one.clone())]);
    bad_payload.push(4 << 2); // a 4-byte document that is not one
    bad_payload.extend_from_slice(b"RV\x01\x00");
    bad_payload.extend_from_slice(&stream(&[(d, one.clone())])[5..]);
    let mut reserved_kind = stream(&[(d, one.clone())]);
    reserved_kind.push((one.len() << 2 | 2) as u8);
    reserved_kind.extend_from_slice(&one);
    let mut overlong = stream(&[(d, one.clone())]);
    overlong.extend_from_slice(&[(one.len() << 2) as u8 | 0x80, 0x00]);
    overlong.extend_from_slice(&one);
    let dict_stream = {
        let mut dict = roving::Dictionary::new();
        let mut w = Writer::new(Vec::new()).unwrap();
        w.serialize_with(&json!({"Id": 1, "Name": "a"}), &mut dict)
            .unwrap();
        w.serialize_with(&json!({"Id": 2, "Name": "b"}), &mut dict)
            .unwrap();
        w.into_inner().unwrap()
    };
    let no_dict = {
        let mut dict = roving::Dictionary::new();
        dict.add_shape(&["Id", "Name"]).unwrap();
        let bound = roving::serde::to_vec_with(&json!({"Id": 2, "Name": "b"}), &mut dict).unwrap();
        stream(&[(d, bound)])
    };
    let bad_delta = {
        let mut dict = roving::Dictionary::new();
        dict.add_shape(&["Id"]).unwrap();
        dict.add_shape(&["Name"]).unwrap();
        stream(&[(Kind::Dictionary, dict.delta_since(1)), (d, one.clone())])
    };
    let mut flags = stream(&[(d, one.clone())]);
    flags[4] = 1;
    let mut version = stream(&[(d, one.clone())]);
    version[3] = 2;
    vec![
        (
            "stream_empty",
            "a header and no frame: an empty stream",
            stream(&[]),
        ),
        (
            "stream_one",
            "one document frame: head 0x18 (length 6 << 2, kind 0), the document of 1",
            stream(&[(d, one.clone())]),
        ),
        ("stream_three", "three document frames", three.clone()),
        (
            "stream_long_frame",
            "a document of 45 bytes: a two-byte frame head (45 << 2 = 180)",
            stream(&[(d, long)]),
        ),
        (
            "stream_dictionary_frame",
            "a plain document, a dictionary frame (kind 1: a delta of the entries from 0, \
             FORMAT.md 23.4) holding its shape, then a document bound to that dictionary",
            dict_stream.clone(),
        ),
        (
            "reject_stream_dictionary_missing",
            "a document bound to the stream's dictionary, whose dictionary frame is missing",
            no_dict,
        ),
        (
            "reject_stream_bad_dictionary",
            "a dictionary frame whose delta starts past the entries the reader has",
            bad_delta,
        ),
        (
            "stream_torn_head",
            "three frames, then a frame head cut by the end: torn, the three are read",
            torn_head,
        ),
        (
            "stream_torn_payload",
            "three frames, then a frame whose payload is cut by the end: torn",
            torn_payload,
        ),
        (
            "stream_zero_tail",
            "three frames, then zero bytes to the end (a file extended by a crash): torn",
            zero_tail,
        ),
        (
            "stream_header_prefix",
            "the first three bytes of a header: a stream torn before its first frame",
            b"RVS".to_vec(),
        ),
        (
            "reject_stream_zero_then_data",
            "a zero frame head (an empty document) followed by other bytes: an error",
            zero_then_data,
        ),
        (
            "reject_stream_bad_payload",
            "a frame in the middle whose payload is not a document: error at the frame",
            bad_payload,
        ),
        (
            "reject_stream_reserved_kind",
            "a frame of kind 2 (reserved)",
            reserved_kind,
        ),
        (
            "reject_stream_overlong_head",
            "a frame head varint that is not minimal",
            overlong,
        ),
        (
            "reject_stream_flags",
            "a header with an unknown flag",
            flags,
        ),
        (
            "reject_stream_version",
            "a header of stream version 2",
            version,
        ),
        (
            "reject_stream_document",
            "a document, not a stream",
            one.clone(),
        ),
    ]
}

fn vector_json(name: &str, description: &str, bytes: &[u8]) -> J {
    let o = read_all(bytes);
    let frames: Vec<J> = o
        .frames
        .iter()
        .map(|(k, off, p, value)| {
            let mut f = json!({
                "kind": match k { Kind::Document => "document", Kind::Dictionary => "dictionary" },
                "offset": off,
                "hex": hex(p),
            });
            if let Some(v) = value {
                f["json"] = J::String(v.clone());
            }
            f
        })
        .collect();
    json!({
        "name": name,
        "description": description,
        "valid": o.error.is_none(),
        "hex": hex(bytes),
        "frames": frames,
        "torn": o.torn.map(|t| json!({"offset": t.offset, "len": t.len})),
        "error": o.error.map(|(k, off)| json!({"kind": k, "offset": off})),
    })
}

#[test]
fn vectors() {
    let write = std::env::var_os("ROVING_WRITE_VECTORS").is_some();
    if write {
        std::fs::create_dir_all(dir()).unwrap();
    }
    let cases = cases();
    for (name, description, bytes) in &cases {
        let want = vector_json(name, description, bytes);
        let path = dir().join(format!("{name}.json"));
        if write {
            let text = serde_json::to_string_pretty(&want).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
        }
        let got: J = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(got, want, "{name}");
        assert_eq!(&unhex(got["hex"].as_str().unwrap()), bytes, "{name}");
        assert_eq!(
            name.starts_with("reject_"),
            !want["valid"].as_bool().unwrap()
        );
    }
    // Every file in the folder is a case (none left behind).
    let files = std::fs::read_dir(dir()).unwrap().count();
    assert_eq!(files, cases.len());
}

#[test]
fn expected_outcomes() {
    let c = cases();
    let get = |n: &str| read_all(&c.iter().find(|x| x.0 == n).unwrap().2);
    assert_eq!(get("stream_three").frames.len(), 3);
    for n in [
        "stream_torn_head",
        "stream_torn_payload",
        "stream_zero_tail",
    ] {
        let o = get(n);
        assert_eq!(o.frames.len(), 3, "{n}");
        assert!(o.torn.is_some() && o.error.is_none(), "{n}");
    }
    assert_eq!(get("stream_header_prefix").torn.unwrap().offset, 0);
    let bad = get("reject_stream_bad_payload");
    assert_eq!(bad.frames.len(), 1);
    let one = doc(&json!(1));
    assert_eq!(bad.error.unwrap().1 as usize, 5 + 1 + one.len());
    assert_eq!(get("stream_one").frames[0].1, 5);
}

#[test]
fn frame_overhead_is_one_or_two_bytes() {
    for (len, head) in [(5, 1), (31, 1), (32, 2), (78, 2), (4095, 2), (4096, 3)] {
        assert_eq!(roving::layout::frame_head_len(len), head, "{len}");
    }
}

#[test]
fn a_document_reader_names_the_stream_reader() {
    let s = stream(&[(Kind::Document, doc(&json!(1)))]);
    let e = Document::open(&s).unwrap_err();
    assert!(e.to_string().contains("iter_load"), "{e}");
    assert!(roving::validate(&s).is_err());
    let e = Document::open_lazy(&s).unwrap_err();
    assert!(e.to_string().contains("record stream"), "{e}");
}

#[test]
fn scan_finds_the_end_and_the_dictionaries() {
    let dict = doc(&json!({"k": "v"}));
    let mut s = stream(&[
        (Kind::Document, doc(&json!(1))),
        (Kind::Dictionary, dict.clone()),
        (Kind::Document, doc(&json!(2))),
    ]);
    let whole = s.len();
    s.extend_from_slice(&[0x90, 0x01, b'R']);
    let sc = scan(&s).unwrap();
    assert_eq!(sc.end, whole);
    assert_eq!(sc.documents, 2);
    assert_eq!(sc.dictionaries.len(), 1);
    assert_eq!(&s[sc.dictionaries[0].clone()], &dict[..]);
    assert_eq!(sc.torn.unwrap().offset, whole);
}

#[test]
fn open_append_cuts_a_torn_tail_and_continues() {
    let path = std::env::temp_dir().join(format!("roving-stream-{}.rvs", std::process::id()));
    let _ = std::fs::remove_file(&path);
    {
        let (mut w, s) = open_append(&path).unwrap();
        assert_eq!(s.documents, 0);
        w.serialize(&1).unwrap();
        w.serialize(&2).unwrap();
    }
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&[0x50, b'R', b'V']); // a torn third frame
    std::fs::write(&path, &bytes).unwrap();
    {
        let (mut w, s) = open_append(&path).unwrap();
        assert_eq!((s.documents, s.torn.is_some()), (2, true));
        w.serialize(&3).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let o = read_all(&bytes);
    let vals: Vec<i64> = o
        .frames
        .iter()
        .map(|f| Document::open(&f.2).unwrap().root().as_i64().unwrap())
        .collect();
    assert_eq!(vals, [1, 2, 3]);
    assert!(o.torn.is_none() && o.error.is_none());
    // A file that is not a stream is left alone.
    std::fs::write(&path, doc(&json!(1))).unwrap();
    assert!(open_append(&path).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), doc(&json!(1)));
    let _ = std::fs::remove_file(&path);
}

fn sample_stream(values: &[i64]) -> (Vec<u8>, Vec<usize>) {
    let mut w = Writer::new(Vec::new()).unwrap();
    let mut ends = Vec::new();
    let mut len = 5;
    for (i, v) in values.iter().enumerate() {
        let d = if i % 3 == 0 {
            doc(&json!({"n": v, "s": "x".repeat((*v as usize) % 50)}))
        } else {
            doc(&json!(v))
        };
        len += roving::layout::frame_head_len(d.len()) + d.len();
        ends.push(len);
        w.write_document(&d).unwrap();
    }
    (w.into_inner().unwrap(), ends)
}

proptest! {
    #[test]
    fn any_truncation_reads_every_whole_record(
        values in proptest::collection::vec(0i64..1000, 0..20),
        cut in any::<prop::sample::Index>(),
    ) {
        let (bytes, ends) = sample_stream(&values);
        let at = cut.index(bytes.len() + 1);
        let o = read_all(&bytes[..at]);
        prop_assert!(o.error.is_none(), "{:?}", o.error);
        let whole = ends.iter().filter(|&&e| e <= at).count();
        prop_assert_eq!(o.frames.len(), whole);
        let boundary = at == bytes.len() || at == 0 || at == 5 || ends.contains(&at);
        prop_assert_eq!(o.torn.is_some(), !boundary);
        if let Some(t) = o.torn {
            prop_assert_eq!(t.offset + t.len, at);
        }
    }

    #[test]
    fn any_byte_flip_errors_or_reads_valid_records(
        values in proptest::collection::vec(0i64..1000, 1..12),
        pos in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        let (mut bytes, _) = sample_stream(&values);
        let p = pos.index(bytes.len());
        bytes[p] ^= flip;
        let o = read_all(&bytes);
        // No panic; every frame read is a valid document; at most one of
        // error and torn tail.
        for f in &o.frames {
            prop_assert!(Document::open(&f.2).is_ok());
        }
        prop_assert!(o.error.is_none() || o.torn.is_none());
        if let Some((_, off)) = o.error {
            prop_assert!(off as usize <= bytes.len());
        }
    }

    #[test]
    fn written_frames_read_back(
        payloads in proptest::collection::vec((any::<bool>(), ".{0,300}"), 0..10),
    ) {
        // Documents, plain or written against the stream's dictionary.
        let mut dict = roving::Dictionary::new();
        let mut w = Writer::new(Vec::new()).unwrap();
        let mut want = Vec::new();
        for (bound, s) in &payloads {
            let v = json!({"s": s, "n": s.len()});
            if *bound {
                w.serialize_with(&v, &mut dict).unwrap();
            } else {
                w.serialize(&v).unwrap();
            }
            want.push(roving::json::to_json(Document::open(&doc(&v)).unwrap().root()).unwrap());
        }
        let bytes = w.into_inner().unwrap();
        let o = read_all(&bytes);
        prop_assert!(o.error.is_none() && o.torn.is_none());
        let got: Vec<String> = o.frames.into_iter().filter_map(|f| f.3).collect();
        prop_assert_eq!(got, want);
    }
}

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
#[allow(non_snake_case)]
struct SimpleObject {
    Id: i64,
    Name: String,
    Address: String,
    Scores: Vec<i64>,
}

fn simple(id: i64) -> SimpleObject {
    SimpleObject {
        Id: id,
        Name: "Simple".into(),
        Address: "Planet Earth".into(),
        Scores: (0..10).collect(),
    }
}

/// Reads every record of a stream with its dictionary frames.
fn read_with_dictionary(bytes: &[u8]) -> roving::Result<Vec<SimpleObject>> {
    let mut r = Reader::new(bytes)?;
    let mut d = roving::stream::StreamDictionary::new();
    let mut out = Vec::new();
    while let Some(f) = r.next_frame()? {
        match f.kind {
            Kind::Dictionary => d.learn(&f)?,
            Kind::Document => {
                let doc = d.open(&f)?;
                out.push(roving::from_value(doc.root())?);
            }
        }
    }
    Ok(out)
}

#[test]
fn dictionary_frames_travel_before_the_records_that_need_them() {
    let mut dict = roving::Dictionary::new();
    let mut w = Writer::new(Vec::new()).unwrap();
    let objs: Vec<SimpleObject> = (100_000..100_100).map(simple).collect();
    for o in &objs {
        w.serialize_with(o, &mut dict).unwrap();
    }
    let bytes = w.into_inner().unwrap();
    assert_eq!(read_with_dictionary(&bytes).unwrap(), objs);
    let sc = scan(&bytes).unwrap();
    assert_eq!((sc.documents, sc.dictionaries.len()), (100, 1));
    // The first record carries its shape; the others refer to the
    // dictionary's: 59 bytes and a 2-byte frame head each.
    let plain = to_vec(&simple(100_000)).unwrap().len();
    assert_eq!(plain, 78);
    let per = (bytes.len() - sc.dictionaries[0].end) / 99;
    assert!(per <= 61, "{per} bytes per record");
    // Without the dictionary, a bound record is an error naming it.
    let frames: Vec<Frame<'_>> = Reader::new(&bytes).unwrap().map(|f| f.unwrap()).collect();
    assert!(frames[0].open().is_ok()); // the first record is plain
    let e = frames[2].open().unwrap_err();
    assert_eq!(kind_name(&e), "DictionaryRequired");
    assert_eq!(e.offset(), Some(frames[2].offset as u64));
}

#[test]
fn a_bad_dictionary_frame_is_an_error_at_its_offset() {
    let mut dict = roving::Dictionary::new();
    let mut w = Writer::new(Vec::new()).unwrap();
    for i in 0..3 {
        w.serialize_with(&simple(i), &mut dict).unwrap();
    }
    let bytes = w.into_inner().unwrap();
    let sc = scan(&bytes).unwrap();
    let mut bad = bytes.clone();
    let at = sc.dictionaries[0].start + 8;
    bad[at] ^= 0x01;
    let e = read_with_dictionary(&bad).unwrap_err();
    let d = &sc.dictionaries[0];
    let head = d.start - roving::layout::frame_head_len(d.len());
    assert_eq!(e.offset(), Some(head as u64), "{e}");
}
