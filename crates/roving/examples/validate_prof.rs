//! Validates one document in a loop, for instruction counts:
//! `validate_prof FILE.json|FILE.rov|bbitem [N]` (JSON is converted first;
//! `bbitem` is a ~150-byte record of 7 fields, as `roving.Store` keeps the
//! BBItem of `python/roving/bench/exp_repository.py`: the validator's fixed cost).
//! Run under `valgrind --tool=callgrind --toggle-collect='validate_prof::run'`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: validate_prof FILE [N]");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let doc = if path == "bbitem" {
        bbitem()
    } else {
        let bytes = std::fs::read(path).expect("read input");
        if path.ends_with(".json") {
            roving::json::from_json(&bytes).expect("convert")
        } else {
            bytes
        }
    };
    eprintln!("{} bytes", doc.len());
    if std::env::var_os("VALIDATE_PROF_HEX").is_some() {
        // The document's bytes, 16 a line (to see its records).
        for (i, line) in doc.chunks(16).enumerate() {
            let hex: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
            eprintln!("{:4}: {}", i * 16, hex.join(" "));
        }
    }
    // Timing: the best of batches of 100 (callgrind runs use a small N).
    let mut best = f64::INFINITY;
    for _ in 0..n.div_ceil(100) {
        let t = std::time::Instant::now();
        for _ in 0..n.min(100) {
            run(std::hint::black_box(&doc)).expect("valid");
        }
        best = best.min(t.elapsed().as_secs_f64() / n.min(100) as f64);
    }
    eprintln!("best batch: {:.1} us per validate", best * 1e6);
}

/// One validation, never inlined: the unit that callgrind counts.
#[inline(never)]
fn run(doc: &[u8]) -> roving::Result<()> {
    roving::validate(doc)
}

/// A BBItem record as `roving.Store` writes one.
fn bbitem() -> Vec<u8> {
    let mut e = roving::Encoder::new();
    let r = (|| {
        e.begin_map()?;
        e.key("identifier")?;
        e.str("item 5")?;
        e.key("createdAt")?;
        e.timestamp(roving::Timestamp {
            seconds: 1_763_890_000,
            nanos: 123_456_000,
            offset: Some(0),
        })?;
        e.key("hash")?;
        e.str("someHash120djas!hf0410AjsifhsFjsd")?;
        e.key("data")?;
        e.bytes(b"some dummy data")?;
        e.key("views")?;
        e.i64(5)?;
        e.key("displayInRect")?;
        e.begin_array()?;
        for _ in 0..4 {
            e.i64(5)?;
        }
        e.end_array()?;
        e.key("optionalString")?;
        e.str("optional string!")?;
        e.end_map()
    })();
    r.expect("encode");
    e.finish().expect("finish")
}
