//! Runs typed encode/decode in a loop for profiling (callgrind):
//! `prof_typed encode|encode_reuse|json|decode|decode_ref|decode_value|rmp_encode|rmp_encode_named|rmp_decode|rmp_decode_ref N`,
//! or `prof_typed dump DIR` to write the typed and JSON encodings to `DIR`.
use roving_bench::{Person, PersonRef};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let op = args.get(1).map(String::as_str).unwrap_or("encode");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let json = std::fs::read(roving_bench::data_path()).unwrap();
    let people: Vec<Person> = serde_json::from_slice(&json).unwrap();
    let bytes = roving::to_vec(&people).unwrap();
    let rmp = rmp_serde::to_vec(&people).unwrap();
    if op == "dump" {
        let dir = args.get(2).map(String::as_str).unwrap_or(".");
        std::fs::write(format!("{dir}/typed.rv"), &bytes).unwrap();
        let from_json = roving::json::from_json(&json).unwrap();
        std::fs::write(format!("{dir}/json.rv"), from_json).unwrap();
        return;
    }
    let mut enc = roving::Encoder::new();
    for _ in 0..n {
        match op {
            "encode" => drop(std::hint::black_box(roving::to_vec(&people).unwrap())),
            "encode_reuse" => {
                use serde::Serialize;
                people
                    .serialize(&mut roving::serde::Serializer::new(&mut enc))
                    .unwrap();
                drop(std::hint::black_box(enc.finish_reset().unwrap()));
            }
            "json" => drop(std::hint::black_box(
                roving::json::from_json(std::hint::black_box(&json)).unwrap(),
            )),
            "decode" => drop(std::hint::black_box(
                roving::from_slice::<Vec<Person>>(&bytes).unwrap(),
            )),
            "decode_ref" => drop(std::hint::black_box(
                roving::from_slice::<Vec<PersonRef>>(&bytes).unwrap(),
            )),
            "decode_value" => drop(std::hint::black_box(
                roving::from_slice::<serde_json::Value>(&bytes).unwrap(),
            )),
            "rmp_encode" => drop(std::hint::black_box(rmp_serde::to_vec(&people).unwrap())),
            "rmp_encode_named" => drop(std::hint::black_box(
                rmp_serde::to_vec_named(&people).unwrap(),
            )),
            "rmp_decode" => drop(std::hint::black_box(
                rmp_serde::from_slice::<Vec<Person>>(&rmp).unwrap(),
            )),
            "rmp_decode_ref" => drop(std::hint::black_box(
                rmp_serde::from_slice::<Vec<PersonRef>>(&rmp).unwrap(),
            )),
            _ => panic!("unknown op"),
        }
    }
}
