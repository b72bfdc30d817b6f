//! Arbitrary bytes: validation (each path), `from_json`, and on valid
//! documents equality, copying, JSON output and serde decoding with a
//! per-byte value limit must take time linear in the input. Each operation is timed (the best of
//! a few runs, so that a busy machine does not count); one far above a
//! generous per-byte budget is a finding. Set `LINEAR_TIME_REPORT=1` to
//! print each new worst time per byte (and
//! write that input to `linear_time-worst-OP` in the working directory).
#![no_main]
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use roving::json::JsonOptions;
use roving::validate::{validate, validate_full};
use roving::{Document, Encoder, Limits};

/// Budget of operation `op` on `len` bytes: a fixed part, for the costs of
/// small inputs, and a per-byte part some 20 to 100 times the worst cost
/// per byte seen in a sanitized fuzzing build (the expanding conversions
/// may visit 16 values per byte, and allocate for each).
fn budget(op: usize, len: usize) -> Duration {
    const NS_PER_BYTE: [u64; 7] = [2_000, 2_000, 2_000, 2_000, 5_000, 50_000, 50_000];
    Duration::from_micros(2_000) + Duration::from_nanos(NS_PER_BYTE[op] * len as u64)
}

/// Worst nanoseconds per byte seen, per operation (for the report).
static WORST: [AtomicU64; 7] = [const { AtomicU64::new(0) }; 7];
const NAMES: [&str; 7] = [
    "validate_full",
    "validate",
    "from_json",
    "eq",
    "write_value",
    "json",
    "serde",
];

/// Times `f` on `len` bytes: the best of 3 runs, and of 10 more when
/// those are over budget (a descheduled run is not a finding).
fn timed(op: usize, data: &[u8], mut f: impl FnMut()) {
    let len = data.len();
    let best = |runs: usize, f: &mut dyn FnMut()| {
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let mut t = best(3, &mut f);
    if t > budget(op, len) {
        t = best(10, &mut f);
        assert!(
            t <= budget(op, len),
            "{}: {t:?} for {len} bytes ({} ns/byte): not linear",
            NAMES[op],
            t.as_nanos() / len.max(1) as u128
        );
    }
    let per_byte = (t.as_nanos() / len.max(1) as u128) as u64;
    if per_byte > WORST[op].fetch_max(per_byte, Ordering::Relaxed)
        && std::env::var_os("LINEAR_TIME_REPORT").is_some()
    {
        eprintln!("linear_time: {} worst {per_byte} ns/byte ({len} bytes, {t:?})", NAMES[op]);
        let _ = std::fs::write(format!("linear_time-worst-{}", NAMES[op]), data);
    }
}

fuzz_target!(|data: &[u8]| {
    let len = data.len();
    timed(0, data, || {
        let _ = std::hint::black_box(validate_full(data));
    });
    timed(1, data, || {
        let _ = std::hint::black_box(validate(data));
    });
    timed(2, data, || {
        let _ = roving::json::from_json(data);
    });
    let Ok(doc) = Document::open(data) else {
        return;
    };
    let root = doc.root();
    timed(3, data, || {
        std::hint::black_box(root == std::hint::black_box(root));
    });
    timed(4, data, || {
        let mut e = Encoder::new();
        let _ = e.write_value(root);
    });
    // Expanding conversions visit a shared value once per place it
    // appears: with at most 16 values per byte (the default limits have a
    // floor of 10^7 for small documents), that is linear too.
    let limits = Limits {
        max_depth: 10_000,
        max_values: 16 * len as u64,
    };
    let opts = JsonOptions {
        indent: Some(1),
        limits,
        ext_text: None,
    };
    let mut out = Vec::new();
    timed(5, data, || {
        out.clear();
        let _ = roving::json::write_json(root, &opts, &mut out);
    });
    timed(6, data, || {
        let _ = std::hint::black_box(roving::serde::from_value_with::<serde_json::Value>(
            root, limits,
        ));
    });
});
