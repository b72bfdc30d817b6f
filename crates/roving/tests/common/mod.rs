#![allow(dead_code)]
pub mod neutral;

/// A file of the shared test data (`shared/data/` beside the repository):
/// `$ROVING_SHARED_DATA` if set, else the first `shared/data` found walking
/// up from this crate.
pub fn shared_data(name: &str) -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("ROVING_SHARED_DATA") {
        return std::path::PathBuf::from(dir).join(name);
    }
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in here.ancestors() {
        let candidate = dir.join("shared/data");
        if candidate.is_dir() {
            return candidate.join(name);
        }
    }
    panic!(
        "shared/data not found above {} (set ROVING_SHARED_DATA)",
        here.display()
    );
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
