//! Maps whose shapes have a hash index of each entry width (FORMAT.md
//! section 8.3): 1 byte up to 254 keys, 2 bytes up to 65,534, 4 bytes from
//! 65,535. The golden vectors stop at 2-byte entries (a 4-byte index needs
//! a shape of 65,535 keys, some 700 KB), so these documents are made here:
//! every key is found (plain and with a key handle), and damage to any
//! index entry is rejected by the validator.

use roving::format::{index_entry_width, index_table_size, read_uint, read_varint};
use roving::{Document, Encoder, KeyHandle, Value};

/// A map of `n` keys `k0`, `k1`, ... with values 0, 1, ...
fn map_of(n: usize) -> Vec<u8> {
    let mut e = Encoder::new();
    e.begin_map().unwrap();
    for i in 0..n {
        e.key(&format!("k{i}")).unwrap();
        e.i64(i as i64).unwrap();
    }
    e.end_map().unwrap();
    e.finish().unwrap()
}

/// Offset and length of the hash index of the shape at `shape`.
fn index_region(doc: &[u8], shape: usize) -> (usize, usize) {
    let tag = doc[shape];
    let slot_width = 1usize << (tag & 3);
    let (n, after) = read_varint(doc, shape + 1).unwrap();
    let n = n as usize;
    let start = after + n * slot_width;
    (start, index_table_size(n) * index_entry_width(n))
}

fn check(n: usize, expected_width: usize) {
    assert_eq!(index_entry_width(n), expected_width, "n = {n}");
    let bytes = map_of(n);
    let doc = Document::open(&bytes).unwrap_or_else(|e| panic!("n = {n}: {e}"));
    let Value::Map(m) = doc.root() else {
        panic!("n = {n}: the root is not a map")
    };
    assert_eq!(m.len(), n);
    for i in 0..n {
        let k = format!("k{i}");
        assert_eq!(
            m.get(&k).and_then(|v| v.as_i64()),
            Some(i as i64),
            "n = {n}, {k}"
        );
        let h = KeyHandle::new(&k);
        assert_eq!(
            m.get_with(&h).and_then(|v| v.as_i64()),
            Some(i as i64),
            "n = {n}, {k} (handle)"
        );
    }
    assert!(m.get("absent").is_none());
    assert!(m.get(&format!("k{n}")).is_none());

    // Damage to the index: a key listed twice (one entry copied over
    // another non-empty one), a key index past the end, a key dropped
    // (an entry emptied). Each must be rejected.
    let shape = m.shape_offset().expect("a map of n > 0 keys has a shape");
    let (start, len) = index_region(&bytes, shape);
    assert!(start + len <= bytes.len());
    let w = expected_width;
    let entry = |b: &[u8], i: usize| read_uint(b, start + i * w, w).unwrap();
    let set = |b: &mut [u8], i: usize, v: u64| {
        for j in 0..w {
            b[start + i * w + j] = (v >> (8 * j)) as u8;
        }
    };
    let table = len / w;
    let full: Vec<usize> = (0..table).filter(|&i| entry(&bytes, i) != 0).collect();
    assert_eq!(full.len(), n, "n = {n}: each key in exactly one entry");
    let (a, b) = (full[0], full[full.len() / 2]);

    let mut dup = bytes.clone();
    let va = entry(&dup, a);
    set(&mut dup, b, va);
    assert!(
        Document::open(&dup).is_err(),
        "n = {n}: a key listed twice was accepted"
    );

    let mut past = bytes.clone();
    set(&mut past, a, n as u64 + 1);
    assert!(
        Document::open(&past).is_err(),
        "n = {n}: a key index past the end was accepted"
    );

    let mut dropped = bytes.clone();
    set(&mut dropped, b, 0);
    assert!(
        Document::open(&dropped).is_err(),
        "n = {n}: a missing key was accepted"
    );
}

#[test]
fn one_byte_entries() {
    for n in [9, 10, 11, 100, 254] {
        check(n, 1);
    }
}

#[test]
fn two_byte_entries() {
    for n in [255, 256, 1_000, 65_534] {
        check(n, 2);
    }
}

#[test]
fn four_byte_entries() {
    for n in [65_535, 65_536, 70_000] {
        check(n, 4);
    }
}
