//! Arbitrary bytes through the validator's three paths: the fast path with
//! AVX2 where the CPU has it (`validate`), the fast path's portable code, and
//! the full checker alone. All must give the same verdict, and the same
//! error kind when they reject (the fast path hands a rejection to the full
//! checker, which reports it). An optimized path that accepts what the full
//! checker rejects is a validation hole even when nothing crashes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::validate::{validate, validate_full, validate_portable};

fn verdict(r: roving::Result<()>) -> Option<roving::ErrorKind> {
    r.err().map(|e| e.kind().clone())
}

fuzz_target!(|data: &[u8]| {
    let full = verdict(validate_full(data));
    assert_eq!(verdict(validate(data)), full, "fast path vs full checker");
    assert_eq!(verdict(validate_portable(data)), full, "portable fast path vs full checker");
});
