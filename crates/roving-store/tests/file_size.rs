//! The file a store leaves: flushing often costs little more room than
//! flushing once (new keys between committed ones are written so that
//! pages stay full).

mod common;

use roving_store::{Store, StoreOptions};

use common::tmp;

/// A small record like `{"id": i, "name": "user{i}", "score": i * 0.5}`.
fn record(i: u64) -> Vec<u8> {
    let mut e = roving::Encoder::new();
    e.begin_map().unwrap();
    e.key("id").unwrap();
    e.u64(i).unwrap();
    e.key("name").unwrap();
    e.str(&format!("user{i}")).unwrap();
    e.key("score").unwrap();
    e.f64(i as f64 * 0.5).unwrap();
    e.end_map().unwrap();
    e.finish().unwrap()
}

/// The size of the file after putting `keys` in order, flushing every
/// `every` records.
fn size_after(keys: &[String], every: usize) -> u64 {
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default().sync(false)).unwrap();
    for (i, k) in keys.iter().enumerate() {
        s.put(k, record(i as u64)).unwrap();
        if (i + 1) % every == 0 {
            s.flush().unwrap();
        }
    }
    s.flush().unwrap();
    assert_eq!(s.len().unwrap(), keys.len() as u64);
    assert_eq!(s.verify().unwrap(), keys.len() as u64);
    drop(s);
    std::fs::metadata(&path).unwrap().len()
}

fn check(name: &str, keys: &[String], every: usize, max_ratio: f64) {
    let once = size_after(keys, keys.len());
    let often = size_after(keys, every);
    let ratio = often as f64 / once as f64;
    eprintln!("{name}: once {once}, every {every} {often}: {ratio:.2}x");
    assert!(
        ratio <= max_ratio,
        "{name}: flushing every {every} records leaves {often} bytes, {ratio:.2}x the {once} of one flush"
    );
}

/// Keys `k0`, `k1`, ... put in numeric order: in key order each batch's
/// keys fall between the committed ones (`k10000` after `k1000`), which
/// used to split every page in the middle (1.89x for 1M records flushed
/// every 10,000).
#[test]
fn flushing_often_leaves_a_file_within_1_2x_of_one_flush() {
    let keys: Vec<String> = (0..60_000).map(|i| format!("k{i}")).collect();
    check("k{i}", &keys, 1_000, 1.2);
}

/// Keys in key order are appended: no overhead at all.
#[test]
fn flushing_sorted_keys_often_costs_no_room() {
    let keys: Vec<String> = (0..30_000).map(|i| format!("k{i:08}")).collect();
    check("k{i:08}", &keys, 1_000, 1.05);
}

/// Moving committed records to keep pages full changes no record: random
/// puts (new keys among committed ones, updates, some values larger than
/// a page), deletions and flushes agree with a model after every flush
/// and after reopening.
#[test]
fn moving_records_keeps_every_record() {
    use std::collections::BTreeMap;
    let (_d, path) = tmp();
    let mut s = Store::open(&path, &StoreOptions::default().sync(false)).unwrap();
    let mut model: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..40u64 {
        for j in 0..(200 + next() % 800) {
            let r = next();
            let i = match r % 4 {
                0 => next() % 20_000, // anywhere
                _ => round * 500 + j, // a dense run of new keys
            };
            let k = format!("k{i}");
            if r % 23 == 0 {
                let had = model.remove(&k).is_some();
                assert_eq!(s.delete(&k).unwrap(), had, "{k}");
            } else {
                let v = if r % 97 == 0 {
                    // A value on overflow pages.
                    let mut e = roving::Encoder::new();
                    e.str(&"x".repeat(5000 + (r % 3000) as usize)).unwrap();
                    e.finish().unwrap()
                } else {
                    record(r % 1_000_000)
                };
                s.put(&k, v.clone()).unwrap();
                model.insert(k, v);
            }
        }
        s.flush().unwrap();
        assert_eq!(s.len().unwrap(), model.len() as u64, "round {round}");
        let got: Vec<(String, Vec<u8>)> = s
            .iter()
            .map(|r| {
                r.map(|(k, d)| (k.to_owned(), d.as_bytes().to_vec()))
                    .unwrap()
            })
            .collect();
        let want: Vec<(String, Vec<u8>)> =
            model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        assert!(
            got == want,
            "round {round}: the store differs from the model"
        );
    }
    drop(s);
    let s = Store::open(&path, &StoreOptions::default()).unwrap();
    assert_eq!(s.verify().unwrap(), model.len() as u64);
    for (k, v) in &model {
        assert_eq!(s.get_bytes(k).unwrap(), Some(&v[..]), "{k}");
    }
}
