//! Tests of the validator: small cases, and the fast path, the portable
//! path and the full checker agreeing on valid and damaged documents.

use super::*;

#[test]
fn tiny() {
    assert!(validate(b"").is_err());
    assert!(validate(b"RV").is_err());
    assert!(validate(b"RV\x01").is_err());
    // root: null immediate, width 1
    assert!(validate(b"RV\x01\x1c\x03\x1c").is_ok());
    // undefined special
    assert!(validate(b"RV\x01\x1c\xff\x1c").is_err());
    // self reference of the root
    assert!(validate(b"RV\x01\x1c\x00\x1c").is_err());
}

/// Documents written one after another (as repeated `pickle.dump`s to
/// one file are) fail at the second header, with a message saying so,
/// on every path; another unknown tag keeps the plain message.
#[test]
fn concatenated_documents_say_so() {
    let one = b"RV\x01\x81a\x1c\x08\x1c";
    let doc = [&one[..], &one[..]].concat();
    for r in [
        validate(&doc),
        validate_with::<FULL>(&doc, None).map(drop),
        validate_with::<PORTABLE>(&doc, None).map(drop),
    ] {
        let e = r.expect_err("two documents");
        assert_eq!(*e.kind(), ErrorKind::UnknownTag(b'R'));
        assert_eq!(e.offset(), Some(one.len() as u64));
        assert!(
            e.to_string().contains("another document starts here"),
            "{e}"
        );
    }
    let e = validate(b"RV\x01\x81a\x1c\x08\x1cRW\x01\x1c\x03\x1c").expect_err("unknown tag");
    assert_eq!(e.to_string(), "unknown tag 0x52 (byte offset 8)");
}

/// A map whose relative shape distance is its own offset + 1 (a shape
/// at offset -1, which wraps to `usize::MAX`) is rejected, by the fast
/// path as by the full checker (found by the outsider reader of
/// `tests/reference`: the fast path took it for an empty map).
#[test]
fn map_shape_before_the_start() {
    // A map at 3 with distance 4; a map at 5 (after "a") with distance 6.
    for doc in [
        &b"RV\x01\x14\x08\x1c\x08\x1c"[..],
        &b"RV\x01\x81a\x14\x0c\x1c\x08\x1c"[..],
    ] {
        for r in [
            validate(doc),
            validate_with::<FULL>(doc, None).map(drop),
            validate_with::<PORTABLE>(doc, None).map(drop),
        ] {
            let e = r.expect_err("a shape before the document's start");
            assert_eq!(*e.kind(), ErrorKind::BadReference, "{doc:x?}");
        }
    }
    // Distances 1..=offset that land on no shape are rejected too.
    for d in 1..=4u8 {
        let doc = [b'R', b'V', 1, 0x81, b'a', 0x14, d << 1, 0x1c, 0x08, 0x1c];
        assert!(validate(&doc).is_err(), "distance {d}");
    }
}

use crate::test_rng::Rng;

/// A document with every kind of record the fast path takes (short and
/// long strings, ASCII or not, arrays and maps of slot widths 1 to 8,
/// shapes with and without an index, decimal floats of both signs) and
/// a few it leaves to the full checker (big and wide integers, floats).
fn mixed_doc(rng: &mut Rng, items: usize) -> Vec<u8> {
    let words = [
        "a",
        "x\u{e9}",
        "name",
        "\u{65e5}\u{672c}",
        "tag",
        "\u{1f600}",
        "q",
    ];
    let mut json = String::from("[");
    for i in 0..items {
        if i > 0 {
            json.push(',');
        }
        let word = |r: &mut Rng| words[r.below(words.len() as u64) as usize];
        let text = |r: &mut Rng, len: u64| (0..len).map(|_| word(r)).collect::<Vec<_>>().join(" ");
        let (short_len, long_len) = (rng.below(8), 10 + rng.below(60));
        let (short, long) = (text(rng, short_len), text(rng, long_len));
        let many: Vec<String> = (0..rng.below(40))
            .map(|k| format!("\"k{k}\":{k}"))
            .collect();
        let ints: Vec<String> = (0..rng.below(300))
            .map(|k| (k as i64 * (rng.below(1 << 20) as i64 - (1 << 19))).to_string())
            .collect();
        json.push_str(&format!(
            "{{\"id\":{i},\"s\":\"{short}\",\"long\":\"{long}\",\"f\":{}.{},\
             \"g\":-{}.5e-3,\"u\":{},\"big\":-{}123456789012345678901,\"wide\":{},\"tags\":[\"{}\",\"{}\",{}],\
             \"nested\":{{\"a\":[{}],\"{}\":true}},\"many\":{{{}}},\"ints\":[{}]}}",
            rng.below(1000),
            rng.below(100),
            rng.below(100),
            u64::MAX - rng.below(10),
            1 + rng.below(9),
            rng.next() >> rng.below(64),
            word(rng),
            word(rng),
            rng.below(100),
            ints.len(),
            word(rng),
            many.join(","),
            ints.join(","),
        ));
    }
    json.push(']');
    crate::json::from_json(json.as_bytes()).unwrap_or_else(|e| panic!("{e}: {json}"))
}

/// `doc`, holding a shape of `keys` whose slots (of `w` bytes) start
/// at `slots`, is valid if the keys are distinct, else rejected as a
/// duplicate key at the slot of the first repeated one.
fn assert_first_duplicate_reported<K: PartialEq + std::fmt::Debug>(
    doc: &[u8],
    keys: &[K],
    slots: usize,
    w: usize,
) {
    let first_dup = (1..keys.len()).find(|&i| keys[..i].contains(&keys[i]));
    let got = validate(doc);
    match first_dup {
        None => assert!(got.is_ok(), "{got:?} for {keys:?}"),
        Some(i) => {
            let e = got.expect_err("a duplicate key");
            assert_eq!(e.kind(), &ErrorKind::DuplicateKey, "{keys:?}");
            assert_eq!(e.offset(), Some((slots + i * w) as u64), "{keys:?}");
        }
    }
}

/// [`same`] on `doc` and on `copies` damaged copies of it (at most `flips`
/// random byte changes each).
fn same_when_damaged(rng: &mut Rng, doc: &[u8], copies: usize, flips: u64) {
    same(doc);
    for _ in 0..copies {
        same(&damaged(rng, doc, flips));
    }
}

fn same(bytes: &[u8]) {
    let full = validate_with::<FULL>(bytes, None).map(drop);
    for fast in [
        validate_with::<PORTABLE>(bytes, None).map(drop),
        validate_with::<AUTO>(bytes, None).map(drop),
    ] {
        match (&fast, &full) {
            (Ok(()), Ok(())) => {}
            (Err(a), Err(b)) if a.kind() == b.kind() && a.offset() == b.offset() => {}
            _ => panic!("fast path {fast:?}, full checker {full:?}"),
        }
    }
}

/// The hash index of a shape of `keys` (more than 8), as the reference
/// encoder fills it: each key at the first empty entry from its home.
fn index_table<K: AsRef<str>>(keys: &[K]) -> Vec<u8> {
    let (t, e) = (index_table_size(keys.len()), index_entry_width(keys.len()));
    let mut table = vec![0u8; t * e];
    for (i, k) in keys.iter().enumerate() {
        let mut h = index_home(key_hash(k.as_ref().as_bytes()), t);
        while table[h * e..h * e + e].iter().any(|&b| b != 0) {
            h = (h + 1) % t;
        }
        table[h * e..h * e + e].copy_from_slice(&(i as u64 + 1).to_le_bytes()[..e]);
    }
    table
}

/// Shapes of up to 8 keys (compared, not hashed, when short) and of 9
/// or more (hashed): a duplicate key is found, whichever way two keys
/// are equal (one record, equal records, short or long, the
/// empty-string constant and an empty record), at the first slot that
/// repeats an earlier key.
#[test]
fn shape_duplicates() {
    let long = "x".repeat(70);
    // Key records: (bytes of the record, the key).
    let pool: Vec<(Vec<u8>, String)> = {
        let mut v = Vec::new();
        for k in ["a", "b", "a", "", "ab", "b"] {
            let mut r = vec![0x80 | k.len() as u8];
            r.extend_from_slice(k.as_bytes());
            v.push((r, k.to_string()));
        }
        for k in ["a", long.as_str(), long.as_str(), ""] {
            let mut r = vec![TAG_STR, k.len() as u8];
            r.extend_from_slice(k.as_bytes());
            v.push((r, k.to_string()));
        }
        v
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..4_000 {
        let mut doc = b"RV\x01".to_vec();
        let mut at = Vec::new();
        for (r, _) in &pool {
            at.push(doc.len());
            doc.extend_from_slice(r);
        }
        let n = 1 + rng.below(12) as usize;
        // Key choice: an index into the pool, or None for the constant.
        let choice: Vec<Option<usize>> = (0..n)
            .map(|_| {
                let c = rng.below(pool.len() as u64 + 1) as usize;
                (c < pool.len()).then_some(c)
            })
            .collect();
        let base = doc.len();
        let w = 2usize;
        doc.push(TAG_SHAPE | 1);
        doc.push(n as u8);
        for c in &choice {
            let raw: u16 = match c {
                None => (special_slot(SPECIAL_EMPTY_STR)) as u16,
                Some(c) => ((base - at[*c]) << 2) as u16,
            };
            doc.extend_from_slice(&raw.to_le_bytes());
        }
        let keys: Vec<&str> = choice
            .iter()
            .map(|c| c.map_or("", |c| pool[c].1.as_str()))
            .collect();
        if n > SHAPE_LINEAR_MAX {
            doc.extend_from_slice(&index_table(&keys));
        }
        doc.extend_from_slice(&[0x1c, 0x0f, 0x1c]);
        assert_first_duplicate_reported(&doc, &keys, base + 2, w);
        same(&doc);
    }
}

/// A shape of 300 keys whose homes are two neighbouring entries of its
/// index, so that they form one run of 300 (the validator puts a long
/// run's hashes in a table to find equal ones), some of them repeating an earlier
/// key (as the same record or as an equal one): the first repeat is
/// reported, a shape of distinct keys is valid, and the modes agree.
#[test]
fn indexed_shape_duplicates_in_long_runs() {
    let n = 300usize;
    let t = index_table_size(n);
    // Distinct keys whose home is entry 5 or 6.
    let names: Vec<String> = (0u64..)
        .map(|i| format!("k{i}"))
        .filter(|k| (5..=6).contains(&index_home(key_hash(k.as_bytes()), t)))
        .take(n)
        .collect();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for round in 0..60 {
        let mut doc = b"RV\x01".to_vec();
        let mut keys: Vec<String> = Vec::new();
        let mut records: Vec<usize> = Vec::new();
        for i in 0..n {
            let repeat = round > 0 && i > 0 && rng.below(100) < 2;
            if repeat && rng.below(2) == 0 {
                // The same record again.
                let j = rng.below(i as u64) as usize;
                keys.push(keys[j].clone());
                records.push(records[j]);
                continue;
            }
            let k = if repeat {
                keys[rng.below(i as u64) as usize].clone()
            } else {
                names[i].clone()
            };
            records.push(doc.len());
            doc.push(TAG_SHORT_STR | k.len() as u8);
            doc.extend_from_slice(k.as_bytes());
            keys.push(k);
        }
        let base = doc.len();
        doc.push(TAG_SHAPE | 2);
        doc.extend_from_slice(&[0xAC, 0x02]); // varint 300
        for &r in &records {
            doc.extend_from_slice(&(((base - r) << 2) as u32).to_le_bytes());
        }
        doc.extend_from_slice(&index_table(&keys));
        doc.extend_from_slice(&[0x1c, 0x0f, 0x1c]);
        assert_first_duplicate_reported(&doc, &keys, base + 3, 4);
        same(&doc);
    }
}

/// How far [`fast::fast_run`] alone goes from the first record of `doc`.
fn fast_reach(doc: &[u8]) -> usize {
    let mut starts = vec![0u64; doc.len() / 64 + 1];
    let mut sh = Shapes {
        cache: [(usize::MAX, 0); SHAPE_CACHE],
        few: [(usize::MAX, 0); FEW_SHAPES],
        n: 0,
    };
    fast::fast_run(doc, &mut starts, &mut sh, doc.len(), HEADER_LEN, None)
}

/// Asserts that [`fast::fast_run`] alone goes past every record of `doc`
/// but those of its last [`WINDOW`] bytes (which the full checker takes).
fn assert_fast_reaches_end(doc: &[u8]) {
    let at = fast_reach(doc);
    assert!(
        at + WINDOW >= doc.len(),
        "stopped at {at} of {}: {:02x?}",
        doc.len(),
        &doc[at..at + 4]
    );
}

/// Fixed-size integers and floats of every width (records `01`-`05`,
/// `08`, `09`), with timestamps between them: the fast path takes them
/// all itself, and the modes agree on them, valid or damaged.
#[test]
fn fixed_size_scalars_agree() {
    let mut rng = Rng(0xF1DE_5CA1_A25E_ED00);
    for _ in 0..20 {
        let mut e = crate::Encoder::new();
        e.begin_array().unwrap();
        for i in 0..300u64 {
            let x = rng.next();
            // Each in an array of its own, of 1-byte slots, with nulls
            // (not a number array; enough of them that wider slots would
            // cost more than an eighth over the record): as a record.
            e.begin_array().unwrap();
            for _ in 0..7 {
                e.null().unwrap();
            }
            match i % 8 {
                0 => e.i64(x as i8 as i64 - 200).unwrap(),
                1 => e.i64((x as i16 as i64) << 2).unwrap(),
                2 => e.i64((x as i32 as i64) << 2).unwrap(),
                3 => e.i64(x as i64 | 1 << 62).unwrap(),
                4 => e.u64(x | 1 << 63).unwrap(),
                5 => e.f64(f64::from(x as u32 as f32 / 7.0)).unwrap(),
                6 => e.f64(f64::from_bits(x >> 2)).unwrap(),
                _ => e
                    .timestamp(crate::Timestamp {
                        seconds: x as i64 >> 20,
                        nanos: (x % 1_000_000_000) as u32,
                        offset: None,
                    })
                    .unwrap(),
            }
            e.end_array().unwrap();
        }
        e.end_array().unwrap();
        let doc = e.finish().unwrap();
        validate(&doc).unwrap();
        let mut tags = std::collections::BTreeSet::new();
        let mut pos = HEADER_LEN;
        while pos < doc.len() {
            tags.insert(doc[pos]);
            pos = crate::layout::record_end(&doc, pos).unwrap();
        }
        for tag in [0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0A] {
            assert!(tags.contains(&tag), "no record {tag:02x}: {tags:02x?}");
        }
        assert_fast_reaches_end(&doc);
        same_when_damaged(&mut rng, &doc, 300, 3);
    }
}

/// Records whose count or shape reference takes a three-byte varint
/// (maps 20 KB past their shape, arrays of 20,000 slots, strings of
/// 20,000 bytes): the fast path takes them itself, and the modes agree on
/// them, valid, damaged, or with an overlong (non-canonical) varint.
#[test]
fn three_byte_varints_agree() {
    let mut rng = Rng(0x3B17_E5AF_E0C0_FFEE);
    let mut e = crate::Encoder::new();
    e.begin_array().unwrap();
    // First, so that the maps' shape is past offset 8,192 (an absolute
    // reference to it takes three bytes too).
    e.str(&"x".repeat(20_000)).unwrap();
    for i in 0..3_000i64 {
        e.begin_map().unwrap();
        e.key("id").unwrap();
        e.i64(i).unwrap();
        e.key("name").unwrap();
        e.str(&format!("item {i}")).unwrap();
        e.end_map().unwrap();
    }
    e.begin_array().unwrap();
    for i in 0..20_000i64 {
        e.i64(i % 7).unwrap();
        if i % 1000 == 0 {
            e.null().unwrap();
        }
    }
    e.end_array().unwrap();
    e.end_array().unwrap();
    let doc = e.finish().unwrap();
    validate(&doc).unwrap();
    assert_fast_reaches_end(&doc);
    // Some map refers to its shape with a three-byte varint.
    assert!(
        doc.windows(4)
            .any(|w| w[0] & !3 == TAG_MAP && w[1] >= 0x80 && w[2] >= 0x80 && w[3] < 0x80),
        "no three-byte shape reference"
    );
    same_when_damaged(&mut rng, &doc, 200, 3);
    // A string record whose length is an overlong three-byte varint.
    let mut bad = b"RV\x02".to_vec();
    bad.extend_from_slice(&[TAG_STR, 0x81, 0x80, 0x00, b'a']);
    bad.extend_from_slice(&[0x1c, 0x14, 0x1c]);
    same(&bad);
    assert!(validate(&bad).is_err());
}

/// A store-like record (short keys, strings, a timestamp, bytes, an
/// array, a null), of a few dozen to a few hundred bytes.
fn small_record(rng: &mut Rng) -> Vec<u8> {
    let mut e = crate::Encoder::new();
    e.begin_map().unwrap();
    e.key("identifier").unwrap();
    e.str(&"item ".repeat(1 + rng.below(20) as usize)).unwrap();
    e.key("createdAt").unwrap();
    let nanos = [0, 999_999_999, rng.below(1_000_000_000) as u32][rng.below(3) as usize];
    let offset = [None, Some(0), Some(-86_399), Some(86_399), Some(3600)][rng.below(5) as usize];
    e.timestamp(crate::Timestamp {
        seconds: rng.next() as i64 >> rng.below(64),
        nanos,
        offset,
    })
    .unwrap();
    e.key("data").unwrap();
    e.bytes(&vec![b'd'; rng.below(200) as usize]).unwrap();
    e.key("views").unwrap();
    e.i64(rng.next() as i64 >> rng.below(64)).unwrap();
    e.key("rect").unwrap();
    e.begin_array().unwrap();
    for _ in 0..rng.below(6) {
        e.i64(rng.below(1000) as i64).unwrap();
    }
    e.end_array().unwrap();
    e.key("opt").unwrap();
    e.null().unwrap();
    e.end_map().unwrap();
    e.finish().unwrap()
}

/// A copy of `doc` with 1 to `most` bytes bit-flipped or overwritten.
fn damaged(rng: &mut Rng, doc: &[u8], most: u64) -> Vec<u8> {
    let mut bad = doc.to_vec();
    for _ in 0..1 + rng.below(most) {
        let i = rng.below(bad.len() as u64) as usize;
        if rng.below(2) == 0 {
            bad[i] ^= 1 << rng.below(8);
        } else {
            bad[i] = rng.next() as u8;
        }
    }
    bad
}

/// Many shapes, referred to again after they left the shape cache (the
/// fast modes find them in their list of shapes), in documents small
/// and large, and one with more shapes than the list holds: the modes
/// agree, valid or corrupted.
#[test]
fn many_shapes_agree() {
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    for (maps, kinds) in [(6, 5), (40, 13), (400, 61), (3000, 500), (2000, 2000)] {
        let items: Vec<String> = (0..maps)
            .map(|i| {
                let k = (i * 7) % kinds;
                format!("{{\"k{k}\":{i},\"x{}\":[{i}],\"s\":\"v{k}\"}}", k % 3)
            })
            .collect();
        let json = format!("[{}]", items.join(","));
        let doc = crate::json::from_json(json.as_bytes()).unwrap();
        validate(&doc).unwrap();
        same_when_damaged(&mut rng, &doc, 300, 2);
    }
}

/// Shapes of up to 8 short-string keys (the fast modes take them) of
/// each slot width, keys equal or differing in length, in their first
/// 7 bytes or only after, the empty-string constant: the fast and full
/// modes agree, valid (distinct keys) or not, and on damaged copies.
#[test]
fn small_shapes_agree() {
    let pool = [
        "",
        "a",
        "b",
        "data",
        "hash",
        "optionalString",
        "optionalStrinG",
        "optionalString",
        "abcdefgh",
        "abcdefgX",
        "abcdefg",
        "views",
        "",
    ];
    let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
    for round in 0..3_000 {
        let w = [1usize, 2, 4, 8][round % 4];
        let n = rng.below(SHAPE_LINEAR_MAX as u64 + 1) as usize;
        let mut doc = b"RV\x01".to_vec();
        let mut at = Vec::new();
        for k in pool {
            at.push(doc.len());
            doc.push(TAG_SHORT_STR | k.len() as u8);
            doc.extend_from_slice(k.as_bytes());
        }
        let base = doc.len();
        // A key: a record of the pool, or None for the constant.
        let choice: Vec<Option<usize>> = (0..n)
            .map(|_| {
                let c = rng.below(pool.len() as u64 + 1) as usize;
                (c < pool.len()).then_some(c)
            })
            .collect();
        let raws: Vec<u64> = choice
            .iter()
            .map(|c| match c {
                None => special_slot(SPECIAL_EMPTY_STR),
                Some(c) => ((base - at[*c]) << 2) as u64,
            })
            .collect();
        if raws.iter().any(|&r| w < 8 && r >> (8 * w) != 0) {
            continue;
        }
        doc.push(TAG_SHAPE | w.trailing_zeros() as u8);
        doc.push(n as u8);
        for r in &raws {
            doc.extend_from_slice(&r.to_le_bytes()[..w]);
        }
        doc.extend_from_slice(&[0x1c, 0x0f, 0x1c]);
        let keys: Vec<&str> = choice.iter().map(|c| c.map_or("", |c| pool[c])).collect();
        assert_first_duplicate_reported(&doc, &keys, base + 2, w);
        same_when_damaged(&mut rng, &doc, 20, 2);
    }
}

/// Small documents (validated through a padded copy): the fast path
/// and the full checker agree on them, valid or corrupted.
#[test]
fn small_documents_agree() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..300 {
        let doc = small_record(&mut rng);
        validate(&doc).unwrap();
        same_when_damaged(&mut rng, &doc, 200, 2);
    }
}

/// The fast path accepts exactly what the full checker accepts, and
/// reports the same first error, on corrupted documents.
#[test]
fn fast_path_agrees_with_full_checker() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for round in 0..12 {
        let doc = mixed_doc(&mut rng, 1 + round);
        validate(&doc).unwrap();
        same_when_damaged(&mut rng, &doc, 3_000, 3);
    }
}

/// String array records (version 2), short and long, with multi-byte
/// characters and 1- to 4-byte block starts and ends: the fast path and
/// the full checker agree on them, valid or damaged.
#[test]
fn string_arrays_agree() {
    let mut rng = Rng(0x5EED_0022_F00D_BEEF);
    let words = ["a", "x\u{e9}", "\u{65e5}\u{672c}", "\u{1f600}", "tag"];
    for round in 0..10usize {
        let n = 8 + rng.below(40 + 200 * (round as u64 % 3)) as usize;
        let len = 1 + rng.below(if round % 4 == 3 { 40 } else { 6 });
        let mut e = crate::Encoder::new();
        e.begin_map().unwrap();
        e.key("list").unwrap();
        e.begin_array().unwrap();
        for i in 0..n {
            let w: String = (0..len)
                .map(|_| words[rng.below(words.len() as u64) as usize])
                .collect();
            e.str(&format!("{w}{i}")).unwrap();
        }
        e.end_array().unwrap();
        e.key("n").unwrap();
        e.i64(n as i64).unwrap();
        e.end_map().unwrap();
        let doc = e.finish().unwrap();
        assert_eq!(doc[2], 2, "a string array was written");
        validate(&doc).unwrap();
        same_when_damaged(&mut rng, &doc, 1_000, 3);
    }
}

/// A document of number array records (version 2) of every binary
/// element type, with counts of one and two varint bytes, between short
/// strings; with `decimal`, decimal ones (`3A`) too.
fn number_arrays_doc(rng: &mut Rng, round: usize, decimal: bool) -> Vec<u8> {
    let mut e = crate::Encoder::new();
    e.begin_array().unwrap();
    for k in 0..6 {
        let n = 1 + rng.below(if (round + k) % 3 == 0 { 300 } else { 12 }) as usize;
        let ints: Vec<i64> = (0..n)
            .map(|_| {
                let v = rng.next() >> rng.below(64);
                (v as i64) >> [0, 8, 16, 32, 48, 56][k]
            })
            .collect();
        e.array_i64(&ints).unwrap();
        let floats: Vec<f64> = (0..n)
            .map(|i| match k % 3 {
                0 => (i as f64) * 0.25,
                2 if decimal => (rng.below(1000) as f64) / 100.0,
                _ => f64::from_bits(rng.next() | 1),
            })
            .collect();
        e.array_f64(&floats).unwrap();
        e.str("after").unwrap();
    }
    e.end_array().unwrap();
    e.finish().unwrap()
}

/// Number arrays: the fast path and the full checker agree on them,
/// valid, damaged, or in a document whose header says version 1 (where
/// they are unknown tags); and the fast path takes those of binary
/// elements itself (in a version 2 document only).
#[test]
fn number_arrays_agree() {
    let mut rng = Rng(0x0DD_BA11_C0FF_EE00);
    for round in 0..12usize {
        for decimal in [false, true] {
            let doc = number_arrays_doc(&mut rng, round, decimal);
            assert_eq!(doc[2], 2, "number arrays were written");
            validate(&doc).unwrap();
            same_when_damaged(&mut rng, &doc, 1_000, 3);
            let mut v1 = doc.clone();
            v1[2] = 1;
            same(&v1);
            assert!(validate(&v1).is_err());
        }
        // The fast path alone goes past every record of binary number
        // arrays and strings (up to the outer array's record, near the
        // end), but not past the first one in a version 1 document.
        let doc = number_arrays_doc(&mut rng, round, false);
        assert_fast_reaches_end(&doc);
        let mut v1 = doc;
        v1[2] = 1;
        assert_eq!(fast_reach(&v1), HEADER_LEN);
    }
}
