//! Runs one operation of the corpus benchmark in a loop, for profiling
//! (`valgrind --tool=callgrind` or `perf record`):
//! `prof_corpus FILE OP N` with FILE `canada`, `citm_catalog` or `twitter`
//! and OP `json` (roving::json::from_json), `encode` (roving::to_vec),
//! `decode` (roving::from_slice), `rmp_encode`, `rmp_decode` or
//! `serde_json`.
use roving_bench::corpus::{canada, citm, twitter, CorpusFile};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::hint::black_box;

fn run<T: Serialize + DeserializeOwned>(name: &'static str, op: &str, n: usize) {
    let f = CorpusFile::<T>::load(name).unwrap();
    for _ in 0..n {
        match op {
            "json" => drop(black_box(
                roving::json::from_json(black_box(&f.json)).unwrap(),
            )),
            "encode" => drop(black_box(roving::to_vec(black_box(&f.typed)).unwrap())),
            "decode" => drop(black_box(
                roving::from_slice::<T>(black_box(&f.roving_typed)).unwrap(),
            )),
            "rmp_encode" => drop(black_box(rmp_serde::to_vec_named(&f.typed).unwrap())),
            "rmp_decode" => drop(black_box(
                rmp_serde::from_slice::<T>(&f.msgpack_named).unwrap(),
            )),
            "serde_json" => drop(black_box(
                serde_json::from_slice::<serde_json::Value>(&f.json).unwrap(),
            )),
            _ => panic!("unknown op {op}"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = args.get(1).map(String::as_str).unwrap_or("canada");
    let op = args.get(2).map(String::as_str).unwrap_or("encode");
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    match file {
        "canada" => run::<canada::FeatureCollection>("canada", op, n),
        "citm_catalog" => run::<citm::CitmCatalog>("citm_catalog", op, n),
        "twitter" => run::<twitter::Twitter>("twitter", op, n),
        _ => panic!("unknown file {file}"),
    }
}
