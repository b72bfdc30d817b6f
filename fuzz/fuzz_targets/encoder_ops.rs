//! Arbitrary sequences of `Encoder` calls (values, containers, keys, key
//! ids, marks and reuse, depth limits, copies of earlier documents, the four
//! ways to finish, resets), checked against a model of what was written:
//! every call succeeds exactly when the model says it may, never panics,
//! and every finished document validates and reads back the model's value.
#![no_main]
use std::rc::Rc;

use libfuzzer_sys::fuzz_target;
use roving::{Document, ElemType, Encoder, ErrorKind, KeyId, Mark, Timestamp, Value};

/// What the encoder should have written.
#[derive(Debug)]
enum M {
    Null,
    Bool(bool),
    /// Sign and little-endian magnitude without high zero bytes (zero is
    /// never negative).
    Int(bool, Vec<u8>),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
    Ts(Timestamp),
    Ext(u64, Vec<u8>),
    Vector(u8, Vec<u8>),
    /// A shaped vector: element type, shape, data.
    Shaped(u8, Vec<usize>, Vec<u8>),
    Array(Vec<Rc<M>>),
    /// Keys in first-written order, each with its last value.
    Map(Vec<(String, Rc<M>)>),
}

fn int(negative: bool, mag: &[u8]) -> M {
    let mut m = mag.to_vec();
    while m.last() == Some(&0) {
        m.pop();
    }
    M::Int(negative && !m.is_empty(), m)
}

fn int_of(v: i128) -> M {
    int(v < 0, &v.unsigned_abs().to_le_bytes())
}

/// Whether `v` reads as `m` (at most `budget` values compared).
fn same(m: &M, v: Value<'_>, budget: &mut u32) -> bool {
    if *budget == 0 {
        return true; // (a shared value expands too far to compare)
    }
    *budget -= 1;
    match (m, v) {
        (M::Null, Value::Null) => true,
        (M::Bool(a), Value::Bool(b)) => *a == b,
        (M::Int(n, mag), Value::Int(_) | Value::UInt(_) | Value::BigInt(_)) => {
            let read = match v {
                Value::Int(i) => int_of(i as i128),
                Value::UInt(u) => int_of(u as i128),
                Value::BigInt(b) => M::Int(b.negative, b.magnitude.to_vec()),
                _ => unreachable!(),
            };
            matches!(read, M::Int(r, ref rm) if r == *n && rm == mag)
        }
        (M::Float(a), Value::Float(b)) => *a == b.to_bits(),
        (M::Str(a), Value::Str(b)) => a == b,
        (M::Bytes(a), Value::Bytes(b)) => a == b,
        (M::Ts(a), Value::Timestamp(b)) => *a == b,
        (M::Ext(t, d), Value::Ext(x)) => *t == x.type_id && d.as_slice() == x.data,
        (M::Vector(e, d), Value::Vector(x)) => {
            *e == x.elem_type() as u8 && d.as_slice() == x.raw() && x.ndim() == 1
        }
        (M::Shaped(e, s, d), Value::Vector(x)) => {
            *e == x.elem_type() as u8 && d.as_slice() == x.raw() && x.shape() == *s
        }
        (M::Array(a), Value::Array(b)) if a.is_empty() => b.is_empty(),
        (M::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| same(x, y, budget))
        }
        (M::Map(a), Value::Map(b)) => {
            a.len() == b.len()
                && a.iter().zip(b.iter()).all(|((k, x), (l, y))| {
                    k == l && b.get(k).is_some() && same(x, y, budget)
                })
        }
        _ => false,
    }
}

/// Bytes of the fuzz input, read front to back (zeros past the end).
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn u8(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        b
    }
    fn take(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.0.len());
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        a.to_vec()
    }
    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        let b = self.take(N);
        a[..b.len()].copy_from_slice(&b);
        a
    }
    /// A string: mostly from a few (so that keys repeat and maps share
    /// shapes), else the input's bytes.
    fn string(&mut self) -> String {
        const POOL: [&str; 8] = [
            "",
            "a",
            "b",
            "name",
            "id",
            "é\u{1F600}",
            "a string longer than sixty-three bytes, so a 0C record and not 80..BF",
            "c",
        ];
        let b = self.u8();
        if b < 200 {
            return POOL[(b % 8) as usize].to_string();
        }
        let n = (self.u8() % 80) as usize;
        String::from_utf8_lossy(&self.take(n)).into_owned()
    }
}

/// An open container of the model.
enum Frame {
    Array(Vec<Rc<M>>),
    /// Entries, and the key written last when its value is still due.
    Map(Vec<(String, Rc<M>)>, Option<String>),
    /// A map opened with its keys (`begin_map_with_keys`): the keys, and
    /// the values written so far.
    Packed(Vec<String>, Vec<Rc<M>>),
}

struct Model {
    frames: Vec<Frame>,
    root: Option<Rc<M>>,
    /// The last value placed (what `Encoder::mark` marks).
    last: Option<Rc<M>>,
    /// This document's number (marks and key ids of others are refused).
    doc: u32,
    max_depth: usize,
}

impl Model {
    fn new(doc: u32, max_depth: usize) -> Model {
        Model {
            frames: Vec::new(),
            root: None,
            last: None,
            doc,
            max_depth,
        }
    }

    /// Whether a value may be placed now.
    fn can_place(&self) -> bool {
        match self.frames.last() {
            None => self.root.is_none(),
            Some(Frame::Array(_)) => true,
            Some(Frame::Map(_, k)) => k.is_some(),
            Some(Frame::Packed(k, v)) => v.len() < k.len(),
        }
    }

    fn place(&mut self, m: Rc<M>) {
        self.last = Some(m.clone());
        match self.frames.last_mut() {
            None => self.root = Some(m),
            Some(Frame::Array(a)) => a.push(m),
            Some(Frame::Packed(_, v)) => v.push(m),
            Some(Frame::Map(entries, k)) => {
                let k = k.take().expect("a key is due");
                match entries.iter_mut().find(|(x, _)| *x == k) {
                    Some(e) => e.1 = m,
                    None => entries.push((k, m)),
                }
            }
        }
    }

    fn can_key(&self) -> bool {
        matches!(self.frames.last(), Some(Frame::Map(_, None)))
    }
}

/// Asserts that the encoder's answer is the model's: `Ok` exactly when
/// `ok`, and an error is a state (or depth) error, never anything else.
fn check<T>(r: &roving::Result<T>, ok: bool, what: &str) {
    match r {
        Ok(_) => assert!(ok, "{what}: the encoder accepted a call the model refuses"),
        Err(e) => {
            assert!(!ok, "{what}: the encoder refused a valid call: {e}");
            assert!(
                matches!(
                    e.kind(),
                    ErrorKind::EncoderState | ErrorKind::DepthLimit | ErrorKind::Unsupported
                ),
                "{what}: unexpected error kind: {e}"
            );
        }
    }
}

/// A finished document must validate and read back the model's root.
fn check_doc(bytes: &[u8], root: &M) {
    let doc = Document::open(bytes).expect("the encoder's output validates");
    let mut budget = 100_000;
    assert!(
        same(root, doc.root(), &mut budget),
        "the document does not read back what was written: {root:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let mut e = Encoder::new();
    let mut doc_no = 0u32;
    let mut model = Model::new(doc_no, 100_000);
    let mut marks: Vec<(Mark, u32, Rc<M>)> = Vec::new();
    let mut key_ids: Vec<(KeyId, u32, String)> = Vec::new();
    // The last finished document, to copy from with `write_value`.
    let mut last_doc: Option<(Vec<u8>, Rc<M>)> = None;
    let mut steps = 0;
    while !input.0.is_empty() && steps < 300 {
        steps += 1;
        let op = input.u8() % 26;
        let ok = model.can_place();
        match op {
            0 => {
                check(&e.null(), ok, "null");
                if ok {
                    model.place(Rc::new(M::Null));
                }
            }
            1 => {
                let b = input.u8() & 1 == 1;
                check(&e.bool(b), ok, "bool");
                if ok {
                    model.place(Rc::new(M::Bool(b)));
                }
            }
            2 => {
                let v = i64::from_le_bytes(input.array());
                check(&e.i64(v), ok, "i64");
                if ok {
                    model.place(Rc::new(int_of(v as i128)));
                }
            }
            3 => {
                let v = u64::from_le_bytes(input.array());
                check(&e.u64(v), ok, "u64");
                if ok {
                    model.place(Rc::new(int_of(v as i128)));
                }
            }
            4 => {
                let v = i128::from_le_bytes(input.array());
                check(&e.i128(v), ok, "i128");
                if ok {
                    model.place(Rc::new(int_of(v)));
                }
            }
            5 => {
                let neg = input.u8() & 1 == 1;
                let n = (input.u8() % 24) as usize;
                let mag = input.take(n);
                check(&e.bigint_le(neg, &mag), ok, "bigint_le");
                if ok {
                    model.place(Rc::new(int(neg, &mag)));
                }
            }
            6 => {
                let v = f64::from_le_bytes(input.array());
                // Also floats from small integers and decimals.
                let v = match input.u8() % 3 {
                    0 => v,
                    1 => (v.to_bits() % 2001) as f64 / 100.0 - 10.0,
                    _ => v as f32 as f64,
                };
                check(&e.f64(v), ok, "f64");
                if ok {
                    model.place(Rc::new(M::Float(v.to_bits())));
                }
            }
            7 => {
                let s = input.string();
                check(&e.str(&s), ok, "str");
                if ok {
                    model.place(Rc::new(M::Str(s)));
                }
            }
            8 => {
                let n = (input.u8() % 80) as usize;
                let b = input.take(n);
                check(&e.bytes(&b), ok, "bytes");
                if ok {
                    model.place(Rc::new(M::Bytes(b)));
                }
            }
            9 => {
                let seconds = i64::from_le_bytes(input.array());
                let nanos = u32::from_le_bytes(input.array()) % 1_100_000_000;
                let off = i32::from_le_bytes(input.array());
                let offset = match input.u8() % 3 {
                    0 => None,
                    1 => Some(off % 90_000),
                    _ => Some(off),
                };
                let t = Timestamp {
                    seconds,
                    nanos,
                    offset,
                };
                let valid = Timestamp::new(seconds, nanos, offset).is_some();
                check(&e.timestamp(t), ok && valid, "timestamp");
                if ok && valid {
                    model.place(Rc::new(M::Ts(t)));
                }
            }
            10 => {
                let id = u64::from_le_bytes(input.array()) >> (input.u8() % 64);
                let n = (input.u8() % 40) as usize;
                let d = input.take(n);
                check(&e.ext(id, &d), ok, "ext");
                if ok {
                    model.place(Rc::new(M::Ext(id, d)));
                }
            }
            11 if input.u8() % 2 == 1 => {
                // A shaped vector of 1 to 3 dimensions (1: refused) of 0 to
                // 4 each, its data usually of the right length.
                let code = input.u8() % 10;
                let elem = ElemType::from_code(code).expect("codes 0..=9");
                let ndim = 1 + (input.u8() % 3) as usize;
                let shape: Vec<usize> = (0..ndim).map(|_| (input.u8() % 5) as usize).collect();
                let want = shape.iter().product::<usize>() * elem.size();
                let n = want + (input.u8() % 8 == 0) as usize;
                let d = input.take(n);
                let fits = ndim >= 2 && d.len() == want;
                check(
                    &e.shaped_vector_raw(elem, &shape, &d),
                    ok && fits,
                    "shaped_vector_raw",
                );
                if ok && fits {
                    model.place(Rc::new(M::Shaped(code, shape, d)));
                }
            }
            11 => {
                let code = input.u8() % 10;
                let elem = ElemType::from_code(code).expect("codes 0..=9");
                let n = (input.u8() % 64) as usize;
                let d = input.take(n);
                let whole = d.len() % elem.size() == 0;
                check(&e.vector_raw(elem, &d), ok && whole, "vector_raw");
                if ok && whole {
                    model.place(Rc::new(M::Vector(code, d)));
                }
            }
            13 if input.u8() % 4 == 0 => {
                // A map opened with its keys: 0 to 39 of them (maybe equal).
                let n = (input.u8() % 40) as usize;
                let keys: Vec<String> = (0..n).map(|_| input.string()).collect();
                let refs: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
                let distinct = (1..n).all(|i| !keys[..i].contains(&keys[i]));
                let ok = ok && model.frames.len() < model.max_depth;
                let r = e.begin_map_with_keys(&refs);
                if ok && !distinct {
                    let err = r.expect_err("equal keys are refused");
                    assert_eq!(*err.kind(), ErrorKind::DuplicateKey, "{err}");
                } else {
                    check(&r, ok, "begin_map_with_keys");
                }
                if ok && distinct {
                    model.frames.push(Frame::Packed(keys, Vec::new()));
                }
                assert_eq!(e.depth(), model.frames.len());
            }
            12 | 13 => {
                let ok = ok && model.frames.len() < model.max_depth;
                if op == 12 {
                    check(&e.begin_array(), ok, "begin_array");
                } else {
                    check(&e.begin_map(), ok, "begin_map");
                }
                if ok {
                    model.frames.push(if op == 12 {
                        Frame::Array(Vec::new())
                    } else {
                        Frame::Map(Vec::new(), None)
                    });
                }
                assert_eq!(e.depth(), model.frames.len());
            }
            14 | 15 => {
                let k = input.string();
                let ok = model.can_key();
                if op == 14 {
                    check(&e.key(&k), ok, "key");
                } else {
                    let r = e.key_with_id(&k);
                    check(&r, ok, "key_with_id");
                    if let Ok(id) = r {
                        key_ids.push((id, model.doc, k.clone()));
                    }
                }
                if let (true, Some(Frame::Map(_, due))) = (ok, model.frames.last_mut()) {
                    *due = Some(k);
                }
            }
            16 => {
                let i = input.u8() as usize;
                if let Some((id, d, k)) = key_ids.get(i % key_ids.len().max(1)).cloned() {
                    let ok = model.can_key() && d == model.doc;
                    check(&e.key_id(id), ok, "key_id");
                    if let (true, Some(Frame::Map(_, due))) = (ok, model.frames.last_mut()) {
                        *due = Some(k);
                    }
                }
            }
            17 => {
                let ok = matches!(model.frames.last(), Some(Frame::Array(_)));
                let r = e.end_array();
                check(&r, ok, "end_array");
                if ok {
                    let Some(Frame::Array(a)) = model.frames.pop() else {
                        unreachable!()
                    };
                    let m = Rc::new(M::Array(a));
                    model.place(m.clone());
                    if let Ok(mark) = r {
                        marks.push((mark, model.doc, m));
                    }
                }
            }
            18 => {
                let ok = match model.frames.last() {
                    Some(Frame::Map(_, None)) => true,
                    Some(Frame::Packed(k, v)) => k.len() == v.len(),
                    _ => false,
                };
                let r = e.end_map();
                check(&r, ok, "end_map");
                if ok {
                    let m = match model.frames.pop() {
                        Some(Frame::Map(m, _)) => m,
                        Some(Frame::Packed(k, v)) => k.into_iter().zip(v).collect(),
                        _ => unreachable!(),
                    };
                    let m = Rc::new(M::Map(m));
                    model.place(m.clone());
                    if let Ok(mark) = r {
                        marks.push((mark, model.doc, m));
                    }
                }
            }
            19 => {
                let mark = e.mark();
                assert_eq!(mark.is_some(), model.last.is_some(), "mark");
                if let (Some(mark), Some(m)) = (mark, model.last.clone()) {
                    marks.push((mark, model.doc, m));
                }
            }
            20 => {
                let i = input.u8() as usize;
                if let Some((mark, d, m)) = marks.get(i % marks.len().max(1)).cloned() {
                    let ok = ok && d == model.doc;
                    check(&e.reuse(mark), ok, "reuse");
                    if ok {
                        model.place(m);
                    }
                }
            }
            21 => {
                e.reset();
                doc_no += 1;
                model = Model::new(doc_no, model.max_depth);
                assert!(e.is_empty());
            }
            22..=24 => {
                let ok = model.frames.is_empty() && model.root.is_some();
                let bytes = match op {
                    22 => e.finish_reset(),
                    23 => e.finish_with(|b| b.to_vec()),
                    _ => {
                        let mut v = b"prefix".to_vec();
                        e.finish_into(&mut v).map(|()| v.split_off(6))
                    }
                };
                check(&bytes, ok, "finish");
                if let Ok(bytes) = bytes {
                    let root = model.root.clone().expect("checked");
                    check_doc(&bytes, &root);
                    last_doc = Some((bytes, root));
                    doc_no += 1;
                    model = Model::new(doc_no, model.max_depth);
                    assert!(e.is_empty());
                }
            }
            _ => match input.u8() % 3 {
                0 => {
                    let d = (input.u8() % 8) as usize;
                    e.set_max_depth(d);
                    model.max_depth = d;
                }
                1 => {
                    e.set_max_depth(100_000);
                    model.max_depth = 100_000;
                }
                _ => {
                    // Copy the last finished document (or its first child).
                    let Some((bytes, m)) = &last_doc else { continue };
                    // (Each copy is a copy: documents made of copies of
                    // copies grow exponentially in the number of calls.)
                    if bytes.len() + e.len() > 1 << 16 {
                        continue;
                    }
                    let doc = Document::open(bytes).expect("validated before");
                    let (v, m) = match (doc.root(), &**m) {
                        (Value::Array(a), M::Array(ms)) if !ms.is_empty() => {
                            (a.get(0).expect("element 0"), ms[0].clone())
                        }
                        (v, _) => (v, m.clone()),
                    };
                    match e.write_value(v) {
                        Ok(()) => {
                            assert!(ok, "write_value accepted a call the model refuses");
                            model.place(m);
                        }
                        Err(err) => {
                            // A failure part way through a value leaves
                            // containers open: start again.
                            assert!(
                                matches!(err.kind(), ErrorKind::EncoderState | ErrorKind::DepthLimit),
                                "write_value: {err}"
                            );
                            e.reset();
                            doc_no += 1;
                            model = Model::new(doc_no, model.max_depth);
                        }
                    }
                }
            },
        }
        assert_eq!(e.depth(), model.frames.len(), "depth after op {op}");
    }
    // Close everything and finish.
    e.set_max_depth(100_000);
    while let Some(f) = model.frames.last() {
        match f {
            Frame::Array(_) => {
                e.end_array().expect("end_array");
                let Some(Frame::Array(a)) = model.frames.pop() else {
                    unreachable!()
                };
                model.place(Rc::new(M::Array(a)));
            }
            Frame::Packed(k, v) => {
                if v.len() < k.len() {
                    e.null().expect("null");
                    model.place(Rc::new(M::Null));
                    continue;
                }
                e.end_map().expect("end_map");
                let Some(Frame::Packed(k, v)) = model.frames.pop() else {
                    unreachable!()
                };
                model.place(Rc::new(M::Map(k.into_iter().zip(v).collect())));
            }
            Frame::Map(_, due) => {
                if due.is_some() {
                    e.null().expect("null");
                    model.place(Rc::new(M::Null));
                }
                e.end_map().expect("end_map");
                let Some(Frame::Map(m, _)) = model.frames.pop() else {
                    unreachable!()
                };
                model.place(Rc::new(M::Map(m)));
            }
        }
    }
    let Some(root) = model.root.clone() else {
        assert!(e.finish().is_err(), "finish without a value");
        return;
    };
    let bytes = e.finish().expect("finish");
    check_doc(&bytes, &root);
});
