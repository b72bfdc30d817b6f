//! Documents with more distinct strings than the encoder's string table
//! holds (2^16 per generation, two generations), or larger than its reach
//! back into the output (4 MiB): they stay valid, a string that recurs
//! keeps one record per reach, and a map's keys stay distinct even when
//! one of them was forgotten or written again between its two occurrences.

use roving::{Document, Encoder, Value};

/// More distinct strings than two generations of the table hold.
const MANY: usize = 300_000;

/// How many times `needle` occurs in `hay`.
fn occurrences(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

#[test]
fn a_recurring_string_keeps_one_record_per_reach_in_a_big_document() -> Result<(), roving::Error> {
    let mut enc = Encoder::new();
    enc.begin_array()?;
    // Not strings alone: such an array could be one string array record
    // (FORMAT.md section 14), which holds its strings' bytes, repeats too.
    enc.null()?;
    for i in 0..MANY {
        enc.str(&format!("unique string {i}"))?;
        if i % 1000 == 0 {
            enc.str("a string that recurs")?;
        }
    }
    enc.end_array()?;
    let bytes = enc.finish()?;
    let doc = Document::open(&bytes)?;
    let root = doc.root();
    let a = root.as_array().unwrap();
    assert_eq!(a.len(), 1 + MANY + MANY / 1000);
    assert_eq!(a.get(2).unwrap().as_str(), Some("a string that recurs"));
    assert_eq!(
        a.get(a.len() - 1).unwrap().as_str(),
        Some("unique string 299999")
    );
    // One record per reach of output at most: found every 1,000 strings,
    // it is written again only once its record lies more than the reach
    // back (the rule the next test shows).
    let records = occurrences(&bytes, b"a string that recurs");
    assert!(
        (1..=1 + bytes.len() / REACH).contains(&records),
        "{records} records in {} bytes",
        bytes.len()
    );
    Ok(())
}

/// The encoder's reach back into its output for a string it found (see
/// FORMAT.md section 7): past it, a recurring string is written again.
const REACH: usize = 4 << 20;

/// A string whose record lies within the reach is found (one record); one
/// whose record is farther back is written again, and its new record is
/// found from then on; both read back.
#[test]
fn a_string_recurring_farther_back_than_the_reach_is_written_again() -> Result<(), roving::Error> {
    let filler = "x".repeat(1000);
    let mut enc = Encoder::new();
    enc.begin_array()?;
    // Not strings alone (see the test above).
    enc.null()?;
    let mut expected = Vec::new();
    let mut put = |enc: &mut Encoder, s: String| -> Result<(), roving::Error> {
        enc.str(&s)?;
        expected.push(s);
        Ok(())
    };
    put(&mut enc, "near".into())?;
    put(&mut enc, "far".into())?;
    // Distinct filler strings of about 1,000 bytes: about 1 MiB, then
    // "near" again; about 5 MiB in all, then "far" twice.
    for i in 0..5_000 {
        put(&mut enc, format!("{filler}{i}"))?;
        if i == 1_000 {
            put(&mut enc, "near".into())?;
        }
    }
    put(&mut enc, "far".into())?;
    put(&mut enc, "far".into())?;
    enc.end_array()?;
    let bytes = enc.finish()?;
    assert!(bytes.len() > REACH);
    assert_eq!(occurrences(&bytes, b"near"), 1, "within reach: one record");
    assert_eq!(
        occurrences(&bytes, b"far"),
        2,
        "past the reach: written again, once"
    );
    let doc = Document::open(&bytes)?;
    let a = doc.root().as_array().unwrap();
    assert_eq!(a.len(), 1 + expected.len());
    for (i, s) in expected.iter().enumerate() {
        assert_eq!(
            a.get(1 + i).and_then(|v| v.as_str()),
            Some(s.as_str()),
            "item {i}"
        );
    }
    Ok(())
}

/// A map whose duplicate key's first record lies farther back than the
/// reach (written again, a second record) still has one key: first
/// position, last value.
#[test]
fn a_duplicate_key_farther_back_than_the_reach_is_still_one_key() -> Result<(), roving::Error> {
    let filler = "k".repeat(1000);
    let mut enc = Encoder::new();
    enc.begin_map()?;
    enc.key("dup")?;
    enc.i64(1)?;
    for i in 0..6_000 {
        enc.key(&format!("{filler}{i}"))?;
        enc.i64(i)?;
    }
    enc.key("dup")?;
    enc.i64(2)?;
    enc.end_map()?;
    let bytes = enc.finish()?;
    assert!(bytes.len() > REACH);
    let doc = Document::open(&bytes)?;
    let m = doc.root().as_map().unwrap();
    assert_eq!(m.len(), 6_001);
    assert_eq!(m.key_at(0), Some("dup"));
    assert_eq!(m.get("dup").and_then(|v| v.as_i64()), Some(2));
    Ok(())
}

#[test]
fn a_key_forgotten_between_its_occurrences_is_still_one_key() -> Result<(), roving::Error> {
    let mut enc = Encoder::new();
    enc.begin_map()?;
    enc.key("dup")?;
    enc.i64(1)?;
    for i in 0..MANY {
        enc.key(&format!("k{i}"))?;
        enc.i64(i as i64)?;
    }
    enc.key("dup")?;
    enc.i64(2)?;
    enc.end_map()?;
    let bytes = enc.finish()?;
    // Validation checks the keys are distinct.
    let doc = Document::open(&bytes)?;
    let m = doc.root().as_map().unwrap();
    assert_eq!(m.len(), MANY + 1);
    // First position, last value.
    assert_eq!(m.key_at(0), Some("dup"));
    assert_eq!(m.get("dup").and_then(|v| v.as_i64()), Some(2));
    assert_eq!(m.get("k299999").and_then(|v| v.as_i64()), Some(299_999));
    Ok(())
}

#[test]
fn json_with_a_far_duplicate_key_converts() -> Result<(), roving::Error> {
    let mut json = String::from(r#"{"dup":"first""#);
    for i in 0..MANY {
        json.push_str(&format!(r#","k{i}":"v{i}""#));
    }
    json.push_str(r#","dup":"last"}"#);
    let bytes = roving::json::from_json(json.as_bytes())?;
    let doc = Document::open(&bytes)?;
    let m = doc.root().as_map().unwrap();
    assert_eq!(m.len(), MANY + 1);
    assert_eq!(m.get("dup"), Some(Value::Str("last")));
    Ok(())
}

/// A key taken from a predicted shape (a record kept since before the
/// table turned) and the same key looked up again in one map: one key.
#[test]
fn a_predicted_key_and_the_same_key_looked_up_again_are_one_key() -> Result<(), roving::Error> {
    let mut json = String::from(r#"[{"a":0}"#);
    for i in 0..MANY {
        json.push_str(&format!(r#","s{i}""#));
    }
    json.push_str(r#",{"a":1,"a":2}]"#);
    let bytes = roving::json::from_json(json.as_bytes())?;
    assert_eq!(last_map_len_and_a(&bytes)?, (1, Some(2)));
    Ok(())
}

/// The number of keys of the last element of the document's root array
/// (a map), and its `"a"` as an integer.
fn last_map_len_and_a(bytes: &[u8]) -> Result<(usize, Option<i64>), roving::Error> {
    let doc = Document::open(bytes)?;
    let a = doc.root().as_array().unwrap();
    let last = a.get(a.len() - 1).unwrap();
    let m = last.as_map().unwrap();
    Ok((m.len(), m.get("a").and_then(|v| v.as_i64())))
}

/// A `KeyId` kept from before the table turned, and the same key written
/// by its text in the same map: one key.
#[test]
fn a_key_id_and_the_same_key_by_text_are_one_key() -> Result<(), roving::Error> {
    let mut enc = Encoder::new();
    enc.begin_array()?;
    enc.begin_map()?;
    let id = enc.key_with_id("a")?;
    enc.i64(0)?;
    enc.end_map()?;
    for i in 0..MANY {
        enc.str(&format!("s{i}"))?;
    }
    enc.begin_map()?;
    enc.key("b")?;
    enc.i64(1)?;
    enc.key_id(id)?;
    enc.i64(2)?;
    enc.key("a")?;
    enc.i64(3)?;
    enc.end_map()?;
    enc.end_array()?;
    let bytes = enc.finish()?;
    assert_eq!(last_map_len_and_a(&bytes)?, (2, Some(3)));
    Ok(())
}

/// An encoder bound to a dictionary keeps the dictionary's strings however
/// many strings a document writes: the next document still refers to them.
#[test]
fn a_bound_encoder_keeps_its_dictionary_strings() -> Result<(), roving::Error> {
    let mut dict = roving::Dictionary::new();
    dict.add_string("a string of the dictionary")?;
    let mut enc = Encoder::with_dictionary(&dict);
    enc.begin_array()?;
    for i in 0..MANY {
        enc.str(&format!("s{i}"))?;
    }
    enc.end_array()?;
    let big = enc.finish_reset()?;
    assert_eq!(occurrences(&big, b"s299999"), 1);
    enc.str("a string of the dictionary")?;
    let small = enc.finish_reset()?;
    assert_eq!(occurrences(&small, b"a string of the dictionary"), 0);
    let mut scratch = Vec::new();
    let doc = roving::Document::open_with(&small, &dict, &mut scratch)?;
    assert_eq!(doc.root().as_str(), Some("a string of the dictionary"));
    Ok(())
}

/// Writes `n` maps `{"id": id(i), "color": color(i)}` in an array.
fn records(
    n: usize,
    id: impl Fn(usize) -> String,
    color: impl Fn(usize) -> &'static str,
) -> Result<Vec<u8>, roving::Error> {
    let mut enc = Encoder::new();
    enc.begin_array()?;
    for i in 0..n {
        enc.begin_map()?;
        enc.key("id")?;
        enc.str(&id(i))?;
        enc.key("color")?;
        enc.str(color(i))?;
        enc.end_map()?;
    }
    enc.end_array()?;
    enc.finish()
}

#[test]
fn values_of_a_key_that_recur_keep_one_record_each() -> Result<(), roving::Error> {
    const COLORS: [&str; 3] = ["crimson red", "forest green", "ocean blue"];
    let bytes = records(20_000, |i| format!("id-{i:08}"), |i| COLORS[i % 3])?;
    for c in COLORS {
        assert_eq!(occurrences(&bytes, c.as_bytes()), 1, "{c}");
    }
    let doc = Document::open(&bytes)?;
    let a = doc.root().as_array().unwrap();
    assert_eq!(a.len(), 20_000);
    let last = a.get(19_999).unwrap().as_map().unwrap();
    assert_eq!(last.get("id").and_then(|v| v.as_str()), Some("id-00019999"));
    assert_eq!(
        last.get("color").and_then(|v| v.as_str()),
        Some(COLORS[19_999 % 3])
    );
    Ok(())
}

/// A key whose values have not recurred for a while writes the next ones
/// without a lookup: a value that then recurs gets a second record, and
/// the document still reads every value back.
#[test]
fn values_of_a_key_that_never_recur_skip_the_lookup() -> Result<(), roving::Error> {
    // Values 0..99 are unique; from 100 on, value i repeats value i - 100
    // (some of them then fall in a skipped stretch).
    let id = |i: usize| format!("unique id {:08}", if i < 100 { i } else { i - 100 });
    let bytes = records(200, id, |_| "one color")?;
    assert_eq!(occurrences(&bytes, b"one color"), 1);
    let twice = (0..100)
        .filter(|&i| occurrences(&bytes, id(i).as_bytes()) == 2)
        .count();
    assert!(twice > 0, "no value of a unique key was written twice");
    assert!(
        (0..100).all(|i| occurrences(&bytes, id(i).as_bytes()) <= 2),
        "a value was written more than twice"
    );
    let doc = Document::open(&bytes)?;
    let a = doc.root().as_array().unwrap();
    for i in 0..200 {
        let m = a.get(i).unwrap().as_map().unwrap();
        assert_eq!(m.get("id").and_then(|v| v.as_str()), Some(id(i).as_str()));
    }
    Ok(())
}

/// After a stretch of values written without a lookup, the key looks its
/// values up again: values that recur from then on are written again only
/// within that stretch (at most 480 values), not for every occurrence.
#[test]
fn a_key_looks_its_values_up_again_after_a_skipped_stretch() -> Result<(), roving::Error> {
    // 2,000 unique values, then 20,000 values of ten strings.
    let id = |i: usize| {
        if i < 2000 {
            format!("first {i:06}")
        } else {
            format!("then {:06}", i % 10)
        }
    };
    let bytes = records(22_000, id, |_| "c")?;
    for k in 0..10 {
        let s = format!("then {k:06}");
        let n = occurrences(&bytes, s.as_bytes());
        assert!((1..=50).contains(&n), "{s}: {n} records");
    }
    Ok(())
}
