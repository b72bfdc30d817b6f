//! Validates one document in a loop, for instruction counts:
//! `validate_prof FILE.json|FILE.rov [N]` (JSON is converted first).
//! Run under `valgrind --tool=callgrind --toggle-collect='validate_prof::run'`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: validate_prof FILE [N]");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let bytes = std::fs::read(path).expect("read input");
    let doc = if path.ends_with(".json") {
        roving::json::from_json(&bytes).expect("convert")
    } else {
        bytes
    };
    eprintln!("{} bytes", doc.len());
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
