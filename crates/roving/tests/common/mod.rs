#![allow(dead_code)]
pub mod neutral;

/// A file of the repository's test data (`data/` at the root, see
/// `data/README.md`), or of `$ROVING_DATA` if set (a directory laid out the
/// same way).
pub fn repo_data(name: &str) -> std::path::PathBuf {
    match std::env::var_os("ROVING_DATA") {
        Some(dir) => std::path::PathBuf::from(dir).join(name),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data")
            .join(name),
    }
}

/// xorshift64: reproducible pseudo-random numbers without another crate.
pub struct Rng(pub u64);

impl Rng {
    /// The next number (the state must not be 0).
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Runs `f` on a new thread with a 256 KiB stack (a regression to
/// recursion per level shows as a stack overflow there, not on the main
/// thread's 8 MiB).
pub fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// The kinds of the records of `bytes` (a valid document), in order.
pub fn record_kinds(bytes: &[u8]) -> Vec<roving::walk::Kind> {
    let doc = roving::Document::open(bytes).unwrap();
    roving::walk::records(&doc)
        .unwrap()
        .map(|r| r.unwrap().kind())
        .collect()
}
