//! roving beside its Rust peers on `1000people.json`, in one run.
//!
//! Groups (criterion ids `GROUP/CONTENDER`), read by `scripts/bench_report.py`:
//! `json_to_format`, `validate`, `open_trusted`, `lookup_name`,
//! `lookup_name_handle`, `decode_value`, `decode_typed`,
//! `decode_typed_borrowed`, `encode_typed`. Sizes go to
//! `<criterion dir>/roving-bench-sizes.json`.

use std::hint::black_box;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BenchmarkGroup, Criterion, SamplingMode};
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
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let args: Vec<String> = std::env::args().skip(1).collect();
    serde_json::json!({
        "started_unix": started,
        // criterion's `--quick` takes a few samples only: the report says so.
        "quick": args.iter().any(|a| a == "--quick"),
        "args": args,
        "data": roving_bench::data_path().display().to_string(),
        "minified_json_len_expected": MINIFIED_JSON_LEN,
        "loadavg_start": loadavg(),
        "nice": nice(),
        "commit": git(&["rev-parse", "--short", "HEAD"]),
        "dirty": git(&["status", "--porcelain", "--", "crates/roving", "crates/roving-bench"])
            .as_str()
            .map(|s| !s.is_empty()),
        "sizes": rows
            .iter()
            .map(|(id, label, n)| serde_json::json!({"id": id, "label": label, "bytes": n}))
            .collect::<Vec<_>>(),
    })
}

/// Writes the run's metadata to `<criterion dir>/roving-bench-sizes.json`.
fn save_meta(meta: &JsonValue) {
    let dir = roving_bench::criterion_dir();
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("roving-bench-sizes.json");
    let text = serde_json::to_string_pretty(meta).unwrap_or_default();
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("roving-bench: cannot write {}: {e}", path.display());
    }
}

/// `/proc/loadavg`'s first three fields (Linux), or null.
fn loadavg() -> JsonValue {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .map_or(JsonValue::Null, JsonValue::from)
}

/// The trimmed output of `git ARGS` in the workspace, or null.
fn git(args: &[&str]) -> JsonValue {
    std::process::Command::new("git")
        .args(args)
        .current_dir(roving_bench::workspace_root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .map_or(JsonValue::Null, JsonValue::from)
}

/// This process's nice value (Linux), or null.
fn nice() -> JsonValue {
    let me = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    me.rfind(')')
        .and_then(|i| me[i + 1..].split_whitespace().nth(16)?.parse::<i64>().ok())
        .map_or(JsonValue::Null, JsonValue::from)
}

/// CPU ticks so far (Linux): all cores busy, all cores total, this process.
fn cpu_ticks() -> Option<(u64, u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let total: u64 = f.iter().take(8).sum();
    let idle = f.get(3)? + f.get(4)?;
    let me = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses): utime is the 12th, stime the 13th.
    let rest = &me[me.rfind(')')? + 1..];
    let g: Vec<&str> = rest.split_whitespace().collect();
    let mine = g.get(11)?.parse::<u64>().ok()? + g.get(12)?.parse::<u64>().ok()?;
    Some((total - idle, total, mine))
}

/// Cores' worth of CPU that other processes used between two `cpu_ticks`.
fn other_load(a: (u64, u64, u64), b: (u64, u64, u64), cpus: usize) -> Option<f64> {
    let wall = (b.1.checked_sub(a.1)? as f64) / cpus.max(1) as f64;
    let other = b.0.checked_sub(a.0)? as f64 - b.2.checked_sub(a.2)? as f64;
    (wall > 0.0).then(|| (other / wall).max(0.0))
}

/// The share of the wall time this process was on a CPU between two `cpu_ticks`.
fn self_share(a: (u64, u64, u64), b: (u64, u64, u64), cpus: usize) -> Option<f64> {
    let wall = (b.1.checked_sub(a.1)? as f64) / cpus.max(1) as f64;
    (wall > 0.0).then(|| b.2.saturating_sub(a.2) as f64 / wall)
}

/// The CPU time (user + system) of the calling thread.
#[cfg(unix)]
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // the platform defines. On failure `ts` stays zero.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Wall time where there is no thread CPU clock.
#[cfg(not(unix))]
fn thread_cpu_time() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

/// Criterion measurement: the benchmark thread's CPU time. On a machine
/// shared with other work this leaves out the time the thread waits for a
/// CPU, which wall time counts; every contender here is single-threaded.
struct CpuTime;

static WALL: WallTime = WallTime;

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        thread_cpu_time()
    }
    fn end(&self, i: Duration) -> Duration {
        thread_cpu_time().saturating_sub(i)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}

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

/// A group for millisecond-scale work: flat sampling.
fn slow<'a, M: Measurement>(c: &'a mut Criterion<M>, name: &str) -> BenchmarkGroup<'a, M> {
    let mut g = c.benchmark_group(name);
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .warm_up_time(Duration::from_millis(400))
        .measurement_time(Duration::from_millis(2000));
    g
}

/// A group for nanosecond-scale work.
fn fast<'a, M: Measurement>(c: &'a mut Criterion<M>, name: &str) -> BenchmarkGroup<'a, M> {
    let mut g = c.benchmark_group(name);
    g.sample_size(50)
        .warm_up_time(Duration::from_millis(400))
        .measurement_time(Duration::from_millis(1500));
    g
}

fn benches<M: Measurement>(cr: &mut Criterion<M>, clock: &str) {
    let i = inputs();
    let mut meta = run_meta(&i);
    meta["clock"] = clock.into();
    save_meta(&meta);
    let ticks = cpu_ticks();
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

    meta["loadavg_end"] = loadavg();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    meta["cpus"] = cpus.into();
    if let (Some(a), Some(b)) = (ticks, cpu_ticks()) {
        meta["other_load"] = other_load(a, b, cpus).map_or(JsonValue::Null, JsonValue::from);
        meta["self_share"] = self_share(a, b, cpus).map_or(JsonValue::Null, JsonValue::from);
    }
    save_meta(&meta);
}

/// `ROVING_BENCH_CLOCK=wall` measures wall time; the default is the
/// thread's CPU time (see [`CpuTime`]).
fn main() {
    if std::env::var("ROVING_BENCH_CLOCK").is_ok_and(|v| v == "wall") {
        let mut c = Criterion::default().configure_from_args();
        benches(&mut c, "wall");
        c.final_summary();
    } else {
        let mut c = Criterion::default()
            .with_measurement(CpuTime)
            .configure_from_args();
        benches(&mut c, "cpu");
        c.final_summary();
    }
}
