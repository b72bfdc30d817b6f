//! Helpers shared by the store's integration tests.
#![allow(dead_code)]

/// A document holding the unsigned integer `n`.
pub fn doc_of(n: u64) -> Vec<u8> {
    let mut e = roving::Encoder::new();
    e.u64(n).unwrap();
    e.finish().unwrap()
}

/// A new temporary directory and the path of a store in it (not yet
/// made); the directory goes when the `TempDir` is dropped.
pub fn tmp() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("test.rvs");
    (dir, p)
}
