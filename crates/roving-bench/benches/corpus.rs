//! The three files of `data/corpus/` (canada, citm_catalog, twitter), each
//! as typed records (`roving_bench::corpus`): roving beside serde_json and
//! rmp-serde, in one run (target 5 of the core issue).
//!
//! Groups (criterion ids `GROUP/CONTENDER`), read by
//! `scripts/bench_report.py`, for each FILE:
//! - `corpus_json_FILE`: minified JSON to roving (`roving::json::from_json`)
//!   beside `serde_json::from_slice::<Value>`;
//! - `corpus_encode_FILE`: typed records to bytes, `roving::to_vec` beside
//!   `rmp_serde::to_vec_named` (and `serde_json::to_vec`);
//! - `corpus_decode_FILE`: bytes to typed records, `roving::from_slice`
//!   (validates first) beside `rmp_serde::from_slice` of the named
//!   encoding (and `serde_json::from_slice` of the JSON).
//!
//! Sizes go to `<criterion dir>/roving-bench-corpus.json`.

mod common;

use std::hint::black_box;

use common::{end_meta, save_meta, slow};
use criterion::measurement::Measurement;
use criterion::Criterion;
use roving_bench::corpus::{canada, citm, twitter, CorpusFile};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value as JsonValue;

/// Where this bench's metadata goes, in criterion's directory.
const META: &str = "roving-bench-corpus.json";

/// Loads a file and checks that every timed decode gives its data back.
fn load<T: Serialize + DeserializeOwned + PartialEq>(name: &'static str) -> CorpusFile<T> {
    let f = CorpusFile::<T>::load(name).unwrap_or_else(|e| panic!("roving-bench: {e}"));
    // Nothing is timed unless every timed decode gives the data back exactly.
    f.check().unwrap_or_else(|e| panic!("roving-bench: {e}"));
    f
}

/// The sizes of every encoding of `f`.
fn sizes<T: Serialize>(f: &CorpusFile<T>) -> JsonValue {
    let json_typed = serde_json::to_vec(&f.typed).map_or(0, |v| v.len());
    serde_json::json!({
        "json_pretty": f.pretty.len(),
        "json": f.json.len(),
        "roving_json": f.roving_json.len(),
        "roving_typed": f.roving_typed.len(),
        "rmp-serde_named": f.msgpack_named.len(),
        "serde_json_typed": json_typed,
    })
}

/// The three groups of one file.
fn bench_file<M: Measurement, T: Serialize + DeserializeOwned>(
    cr: &mut Criterion<M>,
    f: &CorpusFile<T>,
) {
    let json = &f.json[..];
    let mut g = slow(cr, &format!("corpus_json_{}", f.name));
    g.bench_function("roving", |b| {
        b.iter(|| roving::json::from_json(black_box(json)).unwrap())
    });
    g.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_slice::<JsonValue>(black_box(json)).unwrap())
    });
    g.finish();

    let typed = &f.typed;
    let mut g = slow(cr, &format!("corpus_encode_{}", f.name));
    g.bench_function("roving", |b| {
        b.iter(|| roving::to_vec(black_box(typed)).unwrap())
    });
    g.bench_function("rmp-serde_named", |b| {
        b.iter(|| rmp_serde::to_vec_named(black_box(typed)).unwrap())
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::to_vec(black_box(typed)).unwrap())
    });
    g.finish();

    let mut g = slow(cr, &format!("corpus_decode_{}", f.name));
    g.bench_function("roving", |b| {
        b.iter(|| roving::from_slice::<T>(black_box(&f.roving_typed)).unwrap())
    });
    g.bench_function("rmp-serde_named", |b| {
        b.iter(|| rmp_serde::from_slice::<T>(black_box(&f.msgpack_named)).unwrap())
    });
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_slice::<T>(black_box(json)).unwrap())
    });
    g.finish();
}

fn benches<M: Measurement>(cr: &mut Criterion<M>, clock: &str) {
    let canada = load::<canada::FeatureCollection>("canada");
    let citm = load::<citm::CitmCatalog>("citm_catalog");
    let twitter = load::<twitter::Twitter>("twitter");
    let mut meta = common::run_meta();
    meta["clock"] = clock.into();
    meta["data"] = roving_bench::corpus::corpus_dir()
        .display()
        .to_string()
        .into();
    meta["sizes"] = serde_json::json!({
        "canada": sizes(&canada),
        "citm_catalog": sizes(&citm),
        "twitter": sizes(&twitter),
    });
    save_meta(&meta, META);
    let ticks = common::cpu_ticks();
    bench_file(cr, &canada);
    bench_file(cr, &citm);
    bench_file(cr, &twitter);
    end_meta(&mut meta, ticks);
    save_meta(&meta, META);
}

/// `ROVING_BENCH_CLOCK=wall` measures wall time; the default is the
/// thread's CPU time (see `common::CpuTime`).
fn main() {
    common::main_with(benches, benches);
}
