//! roving beside its Rust peers on `1000people.json`, in one run.
//!
//! Groups (criterion ids `GROUP/CONTENDER`), read by `scripts/bench_report.py`:
//! `json_to_format`, `validate`, `open_trusted`, `lookup_name`,
//! `lookup_name_handle`, `decode_value`, `decode_typed`,
//! `decode_typed_borrowed`, `encode_typed`. Sizes go to
//! `<criterion dir>/roving-bench-sizes.json`.

mod common;

use std::hint::black_box;

use common::{end_meta, fast, save_meta, slow};
use criterion::measurement::Measurement;
use criterion::Criterion;
use roving_bench::{enc, Corpus, Person, PersonRef, MINIFIED_JSON_LEN};
use serde::de::IgnoredAny;
use serde::Serialize;
use serde_json::Value as JsonValue;

type Archived = rkyv::Archived<Vec<Person>>;

/// All inputs, built once before any timing.
struct Inputs {
    c: Corpus,
    roving: Vec<u8>,
    msgpack_value: Vec<u8>,
    msgpack_typed: Vec<u8>,
    cbor: Vec<u8>,
    flex: Vec<u8>,
    bitcode: Vec<u8>,
    rkyv: rkyv::util::AlignedVec,
}

fn inputs() -> Inputs {
    let c = Corpus::load().unwrap_or_else(|e| panic!("roving-bench: {e}"));
    // Nothing is timed unless every timed decode gives the data back exactly.
    roving_bench::check_decodes(&c).unwrap_or_else(|e| panic!("roving-bench: {e}"));
    let ok = |r: Result<Vec<u8>, String>| r.unwrap_or_else(|e| panic!("roving-bench: {e}"));
    Inputs {
        roving: ok(enc::roving_from_json(&c.json)),
        msgpack_value: ok(enc::msgpack_value(&c.value)),
        msgpack_typed: ok(enc::msgpack_typed(&c.people)),
        cbor: ok(enc::cbor(&c.value)),
        flex: ok(enc::flex(&c.value)),
        bitcode: enc::bitcode_typed(&c.people),
        rkyv: enc::rkyv_typed(&c.people).unwrap_or_else(|e| panic!("roving-bench: {e}")),
        c,
    }
}

/// The sizes of every encoding, the run's start time (the report ignores
/// criterion results older than that) and the load on the machine.
fn run_meta(i: &Inputs) -> JsonValue {
    let c = &i.c;
    let ok = |r: Result<Vec<u8>, String>| r.map(|v| v.len()).unwrap_or(0);
    let rows: Vec<(&str, &str, usize)> = vec![
        ("json", "minified JSON (serde_json)", c.json.len()),
        (
            "json_pretty",
            "JSON as in the file (pretty)",
            c.pretty.len(),
        ),
        ("roving", "roving (roving::json::from_json)", i.roving.len()),
        (
            "roving_typed",
            "roving (roving::to_vec of typed structs)",
            ok(enc::roving_typed(&c.people)),
        ),
        (
            "rmp-serde",
            "MessagePack from Value (maps with keys)",
            i.msgpack_value.len(),
        ),
        (
            "rmp-serde_typed",
            "MessagePack typed, rmp_serde::to_vec (structs as arrays, no keys)",
            i.msgpack_typed.len(),
        ),
        (
            "rmp-serde_typed_named",
            "MessagePack typed, rmp_serde::to_vec_named (keys)",
            ok(enc::msgpack_typed_named(&c.people)),
        ),
        ("ciborium", "CBOR from Value (ciborium)", i.cbor.len()),
        (
            "flexbuffers",
            "FlexBuffers from Value (serde)",
            i.flex.len(),
        ),
        (
            "bitcode",
            "bitcode typed (derive, no keys)",
            i.bitcode.len(),
        ),
        ("rkyv", "rkyv typed (no keys)", i.rkyv.len()),
    ];
    let mut meta = common::run_meta();
    meta["data"] = roving_bench::data_path().display().to_string().into();
    meta["minified_json_len_expected"] = MINIFIED_JSON_LEN.into();
    meta["sizes"] = rows
        .iter()
        .map(|(id, label, n)| serde_json::json!({"id": id, "label": label, "bytes": n}))
        .collect::<Vec<_>>()
        .into();
    meta
}

/// Where this bench's metadata goes, in criterion's directory.
const META: &str = "roving-bench-sizes.json";

/// simd-json's state reused across iterations, as its docs recommend for
/// repeated parsing (`*_with_buffers`; `to_tape`, `from_slice` and
/// `to_owned_value` allocate fresh buffers of the input's size every call,
/// which made up about half of its time here): the parse buffers, and the
/// copy of the input it parses in place (copied every iteration, into
/// reused memory).
struct SimdJson {
    buffers: simd_json::Buffers,
    copy: Vec<u8>,
}

impl SimdJson {
    fn new(len: usize) -> SimdJson {
        SimdJson {
            buffers: simd_json::Buffers::new(len),
            copy: Vec::with_capacity(len),
        }
    }

    /// A fresh copy of `json` for simd-json to parse (and overwrite), and
    /// the buffers to parse it with.
    fn input(&mut self, json: &[u8]) -> (&mut [u8], &mut simd_json::Buffers) {
        self.copy.clear();
        self.copy.extend_from_slice(json);
        (&mut self.copy, &mut self.buffers)
    }
}

fn benches<M: Measurement>(cr: &mut Criterion<M>, clock: &str) {
    let i = inputs();
    let mut meta = run_meta(&i);
    meta["clock"] = clock.into();
    save_meta(&meta, META);
    let ticks = common::cpu_ticks();
    let json = &i.c.json[..];
    let mut sj = SimdJson::new(json.len());

    // JSON -> format: roving parses straight into its encoder; the peers
    // parse into their value type (serde_json::Value, or typed structs for
    // the formats without a dynamic value) and serialize that.
    {
        let mut g = slow(cr, "json_to_format");
        g.bench_function("roving", |b| {
            b.iter(|| roving::json::from_json(black_box(json)).unwrap())
        });
        let mut e = roving::Encoder::new();
        g.bench_function("roving_reuse", |b| {
            b.iter(|| {
                roving::json::from_json_into(black_box(json), &mut e).unwrap();
                e.finish_reset().unwrap()
            })
        });
        g.bench_function("serde_json_value", |b| {
            b.iter(|| serde_json::from_slice::<JsonValue>(black_box(json)).unwrap())
        });
        g.bench_function("simd-json", |b| {
            b.iter(|| {
                let (buf, bufs) = sj.input(black_box(json));
                simd_json::to_owned_value_with_buffers(buf, bufs).unwrap()
            })
        });
        g.bench_function("rmp-serde", |b| {
            b.iter(|| {
                let v: JsonValue = serde_json::from_slice(black_box(json)).unwrap();
                rmp_serde::to_vec(&v).unwrap()
            })
        });
        g.bench_function("ciborium", |b| {
            b.iter(|| {
                let v: JsonValue = serde_json::from_slice(black_box(json)).unwrap();
                enc::cbor(&v).unwrap()
            })
        });
        g.bench_function("flexbuffers", |b| {
            b.iter(|| {
                let v: JsonValue = serde_json::from_slice(black_box(json)).unwrap();
                flexbuffers::to_vec(&v).unwrap()
            })
        });
        g.bench_function("bitcode", |b| {
            b.iter(|| {
                let v: Vec<Person> = serde_json::from_slice(black_box(json)).unwrap();
                bitcode::encode(&v)
            })
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| {
                let v: Vec<Person> = serde_json::from_slice(black_box(json)).unwrap();
                rkyv::to_bytes::<rkyv::rancor::Error>(&v).unwrap()
            })
        });
        g.finish();
    }

    // Validate: the closest check each format has without building a tree.
    {
        let mut g = slow(cr, "validate");
        g.bench_function("roving", |b| {
            b.iter(|| roving::validate(black_box(&i.roving)).unwrap())
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(json)).unwrap())
        });
        g.bench_function("simd-json", |b| {
            b.iter(|| {
                let (buf, bufs) = sj.input(black_box(json));
                simd_json::to_tape_with_buffers(buf, bufs)
                    .map(|t| t.0.len())
                    .unwrap()
            })
        });
        g.bench_function("rmp-serde", |b| {
            b.iter(|| rmp_serde::from_slice::<IgnoredAny>(black_box(&i.msgpack_value)).unwrap())
        });
        g.bench_function("ciborium", |b| {
            b.iter(|| ciborium::from_reader::<IgnoredAny, _>(black_box(&i.cbor[..])).unwrap())
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| {
                rkyv::access::<Archived, rkyv::rancor::Error>(black_box(&i.rkyv[..]))
                    .unwrap()
                    .len()
            })
        });
        g.finish();
        // FlexBuffers' own check is shallow and O(1): it belongs with the
        // trusted opens.
    }

    // Trusted open: reach the root without validating.
    {
        let mut g = fast(cr, "open_trusted");
        let rv = &i.roving[..];
        g.bench_function("roving", |b| {
            b.iter(|| {
                // SAFETY: `rv` was written by roving's encoder just above.
                let doc = unsafe { roving::Document::open_trusted(black_box(rv)) }.unwrap();
                doc.root()
            })
        });
        g.bench_function("flexbuffers", |b| {
            b.iter(|| {
                flexbuffers::Reader::get_root(black_box(&i.flex[..]))
                    .unwrap()
                    .length()
            })
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| {
                // SAFETY: `i.rkyv` was written by rkyv::to_bytes for this type just above.
                let a = unsafe { rkyv::access_unchecked::<Archived>(black_box(&i.rkyv[..])) };
                a.len()
            })
        });
        g.finish();
    }

    // `[123].name` from an open document.
    {
        // SAFETY: written by roving's encoder above.
        let doc = unsafe { roving::Document::open_trusted(&i.roving) }.unwrap();
        let root = doc.root();
        let flex = flexbuffers::Reader::get_root(&i.flex[..]).unwrap();
        // SAFETY: written by rkyv::to_bytes for this type above.
        let rk = unsafe { rkyv::access_unchecked::<Archived>(&i.rkyv[..]) };
        let value = &i.c.value;
        let expected = i.c.people[123].name.as_str();
        assert_eq!(
            root.index(123)
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str()),
            Some(expected)
        );
        assert_eq!(
            flex.as_vector().idx(123).as_map().idx("name").as_str(),
            expected
        );

        let mut g = fast(cr, "lookup_name");
        g.bench_function("roving", |b| {
            b.iter(|| {
                black_box(root)
                    .index(black_box(123))
                    .unwrap()
                    .get(black_box("name"))
                    .unwrap()
                    .as_str()
            })
        });
        g.bench_function("flexbuffers", |b| {
            b.iter(|| {
                black_box(&flex)
                    .as_vector()
                    .idx(black_box(123))
                    .as_map()
                    .idx(black_box("name"))
                    .as_str()
            })
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| black_box(rk)[black_box(123)].name.as_str())
        });
        g.bench_function("serde_json_value", |b| {
            b.iter(|| black_box(value)[black_box(123)][black_box("name")].as_str())
        });
        g.finish();

        let handle = roving::KeyHandle::new("name");
        let mut g = fast(cr, "lookup_name_handle");
        g.bench_function("roving", |b| {
            b.iter(|| {
                let m = black_box(root)
                    .index(black_box(123))
                    .unwrap()
                    .as_map()
                    .unwrap();
                m.get_with(black_box(&handle)).unwrap().as_str()
            })
        });
        g.finish();
    }

    // Full decode into serde_json::Value.
    {
        let mut g = slow(cr, "decode_value");
        g.bench_function("roving", |b| {
            b.iter(|| roving::from_slice::<JsonValue>(black_box(&i.roving)).unwrap())
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| serde_json::from_slice::<JsonValue>(black_box(json)).unwrap())
        });
        g.bench_function("simd-json", |b| {
            b.iter(|| {
                let (buf, bufs) = sj.input(black_box(json));
                simd_json::serde::from_slice_with_buffers::<JsonValue>(buf, bufs).unwrap()
            })
        });
        g.bench_function("rmp-serde", |b| {
            b.iter(|| rmp_serde::from_slice::<JsonValue>(black_box(&i.msgpack_value)).unwrap())
        });
        g.bench_function("ciborium", |b| {
            b.iter(|| ciborium::from_reader::<JsonValue, _>(black_box(&i.cbor[..])).unwrap())
        });
        g.bench_function("flexbuffers", |b| {
            b.iter(|| flexbuffers::from_slice::<JsonValue>(black_box(&i.flex)).unwrap())
        });
        g.finish();
    }

    // Full decode into typed structs (owned strings).
    {
        let flex_typed = enc::flex(&i.c.people).unwrap_or_default();
        let cbor_typed = enc::cbor(&i.c.people).unwrap_or_default();
        let mut g = slow(cr, "decode_typed");
        g.bench_function("roving", |b| {
            b.iter(|| roving::from_slice::<Vec<Person>>(black_box(&i.roving)).unwrap())
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| serde_json::from_slice::<Vec<Person>>(black_box(json)).unwrap())
        });
        g.bench_function("simd-json", |b| {
            b.iter(|| {
                let (buf, bufs) = sj.input(black_box(json));
                simd_json::serde::from_slice_with_buffers::<Vec<Person>>(buf, bufs).unwrap()
            })
        });
        g.bench_function("rmp-serde", |b| {
            b.iter(|| rmp_serde::from_slice::<Vec<Person>>(black_box(&i.msgpack_typed)).unwrap())
        });
        g.bench_function("ciborium", |b| {
            b.iter(|| ciborium::from_reader::<Vec<Person>, _>(black_box(&cbor_typed[..])).unwrap())
        });
        g.bench_function("flexbuffers", |b| {
            b.iter(|| flexbuffers::from_slice::<Vec<Person>>(black_box(&flex_typed)).unwrap())
        });
        g.bench_function("bitcode", |b| {
            b.iter(|| bitcode::decode::<Vec<Person>>(black_box(&i.bitcode)).unwrap())
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| {
                rkyv::from_bytes::<Vec<Person>, rkyv::rancor::Error>(black_box(&i.rkyv[..]))
                    .unwrap()
            })
        });
        g.finish();

        // Borrowed strings (`&str` into the buffer) where the format allows.
        let mut g = slow(cr, "decode_typed_borrowed");
        g.bench_function("roving", |b| {
            b.iter(|| roving::from_slice::<Vec<PersonRef<'_>>>(black_box(&i.roving)).unwrap())
        });
        g.bench_function("rmp-serde", |b| {
            b.iter(|| {
                rmp_serde::from_slice::<Vec<PersonRef<'_>>>(black_box(&i.msgpack_typed)).unwrap()
            })
        });
        g.bench_function("flexbuffers", |b| {
            b.iter(|| {
                flexbuffers::from_slice::<Vec<PersonRef<'_>>>(black_box(&flex_typed)).unwrap()
            })
        });
        g.bench_function("bitcode", |b| {
            b.iter(|| bitcode::decode::<Vec<PersonRef<'_>>>(black_box(&i.bitcode)).unwrap())
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| {
                rkyv::access::<Archived, rkyv::rancor::Error>(black_box(&i.rkyv[..]))
                    .unwrap()
                    .len()
            })
        });
        g.finish();
    }

    // Encode from typed structs.
    {
        let p = &i.c.people;
        let mut g = slow(cr, "encode_typed");
        g.bench_function("roving", |b| {
            b.iter(|| roving::to_vec(black_box(p)).unwrap())
        });
        let mut e = roving::Encoder::new();
        g.bench_function("roving_reuse", |b| {
            b.iter(|| {
                black_box(p)
                    .serialize(&mut roving::serde::Serializer::new(&mut e))
                    .unwrap();
                e.finish_reset().unwrap()
            })
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| serde_json::to_vec(black_box(p)).unwrap())
        });
        g.bench_function("simd-json", |b| {
            b.iter(|| simd_json::serde::to_vec(black_box(p)).unwrap())
        });
        g.bench_function("rmp-serde", |b| {
            b.iter(|| rmp_serde::to_vec(black_box(p)).unwrap())
        });
        g.bench_function("rmp-serde_named", |b| {
            b.iter(|| rmp_serde::to_vec_named(black_box(p)).unwrap())
        });
        g.bench_function("ciborium", |b| b.iter(|| enc::cbor(black_box(p)).unwrap()));
        g.bench_function("flexbuffers", |b| {
            b.iter(|| flexbuffers::to_vec(black_box(p)).unwrap())
        });
        g.bench_function("bitcode", |b| b.iter(|| bitcode::encode(black_box(p))));
        // As `roving_reuse`: bitcode's `Buffer` (its documented way to
        // encode repeatedly) keeps its allocations between calls; the bytes
        // are copied out into a fresh `Vec<u8>`, as every row returns.
        let mut bc = bitcode::Buffer::new();
        g.bench_function("bitcode_reuse", |b| {
            b.iter(|| bc.encode(black_box(p)).to_vec())
        });
        g.bench_function("rkyv", |b| {
            b.iter(|| rkyv::to_bytes::<rkyv::rancor::Error>(black_box(p)).unwrap())
        });
        g.finish();
    }

    end_meta(&mut meta, ticks);
    save_meta(&meta, META);
}

/// `ROVING_BENCH_CLOCK=wall` measures wall time; the default is the
/// thread's CPU time (see `common::CpuTime`).
fn main() {
    common::main_with(benches, benches);
}
