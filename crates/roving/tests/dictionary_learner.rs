//! `dictionary::Learner`: what a self-growing dictionary learns from the
//! documents written against it (shapes at once, value strings once they
//! recur), what it leaves out, and that every document still reads.

use roving::dictionary::{
    Dictionary, Entry, Learner, AUTO_GROWTH_MAX_BASE, LEARN_AFTER, LEARN_MAX_BASE, LEARN_MAX_LEN,
    LEARN_MIN_LEN,
};
use roving::{Document, Encoder};

/// `{"id": n, "v": value}` written against `dict`, learnt from, finished.
fn record(dict: &mut Dictionary, learner: &mut Learner, n: i64, value: &str) -> Vec<u8> {
    let mut enc = Encoder::with_dictionary(dict);
    enc.begin_map().unwrap();
    enc.key("id").unwrap();
    enc.i64(n).unwrap();
    enc.key("v").unwrap();
    enc.str(value).unwrap();
    enc.end_map().unwrap();
    learner.learn(&enc, dict);
    enc.finish().unwrap()
}

fn read_back(doc: &[u8], dict: &Dictionary) -> (i64, String) {
    let mut scratch = Vec::new();
    let d = Document::open_with(doc, dict, &mut scratch).unwrap();
    let root = d.root();
    let id = root.get("id").and_then(|v| v.as_i64()).unwrap();
    let v = root.get("v").and_then(|v| v.as_str()).unwrap().to_owned();
    (id, v)
}

fn strings(dict: &Dictionary) -> Vec<&str> {
    dict.entries()
        .iter()
        .filter_map(|e| match e {
            Entry::Str(s) => Some(s.as_str()),
            Entry::Shape(_) => None,
        })
        .collect()
}

#[test]
fn a_recurring_value_string_is_learnt_after_enough_documents() {
    let mut dict = Dictionary::new();
    let mut learner = Learner::new();
    let value = "status: delivered to the customer";
    let docs: Vec<Vec<u8>> = (0..6)
        .map(|i| record(&mut dict, &mut learner, i, value))
        .collect();
    assert_eq!(strings(&dict), vec![value]);
    // Learnt while the LEARN_AFTER-th document was written: the ones after
    // it refer to the entry, and are smaller by the string's bytes.
    let n = LEARN_AFTER as usize;
    assert_eq!(docs[n - 1].len(), docs[1].len());
    assert!(docs[n].len() + value.len() <= docs[n - 1].len(), "{docs:?}");
    // Every document reads with the final dictionary.
    for (i, d) in docs.iter().enumerate() {
        assert_eq!(read_back(d, &dict), (i as i64, value.to_owned()));
    }
}

#[test]
fn strings_seen_once_too_short_or_too_long_are_not_learnt() {
    let mut dict = Dictionary::new();
    let mut learner = Learner::new();
    let short = "x".repeat(LEARN_MIN_LEN - 1);
    let long = "y".repeat(LEARN_MAX_LEN + 1);
    let mut docs = Vec::new();
    for i in 0..10 {
        docs.push(record(&mut dict, &mut learner, i, &short));
        docs.push(record(&mut dict, &mut learner, i, &long));
        docs.push(record(
            &mut dict,
            &mut learner,
            i,
            &format!("unique value {i}"),
        ));
    }
    assert!(strings(&dict).is_empty(), "{:?}", dict.entries());
    assert_eq!(dict.len(), 1, "the shape only");
    assert_eq!(read_back(&docs[1], &dict), (0, long));
}

#[test]
fn strings_fill_half_the_base_and_shapes_the_rest() {
    let mut dict = Dictionary::new();
    let mut learner = Learner::new();
    // Many recurring values: learnt until the base reaches LEARN_MAX_BASE.
    let mut docs = Vec::new();
    for i in 0..60 {
        let v = format!("recurring value number {i:02}");
        for _ in 0..LEARN_AFTER {
            docs.push((record(&mut dict, &mut learner, i, &v), i, v.clone()));
        }
    }
    let learnt = strings(&dict).len();
    assert!(learnt > 5 && learnt < 60, "{learnt} strings");
    assert!(dict.base_len() <= LEARN_MAX_BASE, "{}", dict.base_len());
    // Shapes still grow past it, up to AUTO_GROWTH_MAX_BASE.
    for i in 0..80 {
        let mut enc = Encoder::with_dictionary(&dict);
        enc.begin_map().unwrap();
        enc.key(&format!("a field of kind {i}")).unwrap();
        enc.i64(i).unwrap();
        enc.end_map().unwrap();
        learner.learn(&enc, &mut dict);
        enc.finish().unwrap();
    }
    let base = dict.base_len();
    assert!(
        (AUTO_GROWTH_MAX_BASE..AUTO_GROWTH_MAX_BASE + 64).contains(&base),
        "{base}"
    );
    assert_eq!(
        strings(&dict).len(),
        learnt,
        "no string learnt past half the base"
    );
    for (d, i, v) in &docs {
        assert_eq!(read_back(d, &dict), (*i, v.clone()));
    }
}

#[test]
fn a_frozen_dictionary_learns_nothing() {
    let mut dict = Dictionary::new();
    dict.freeze();
    let mut learner = Learner::new();
    for i in 0..5 {
        let d = record(&mut dict, &mut learner, i, "recurring value");
        assert_eq!(read_back(&d, &dict), (i, "recurring value".to_owned()));
    }
    assert_eq!(dict.len(), 0);
}

#[test]
fn many_distinct_strings_keep_the_learner_bounded_and_working() {
    let mut dict = Dictionary::new();
    let mut learner = Learner::new();
    // Far more candidates than the learner counts at once...
    for i in 0..20_000 {
        record(&mut dict, &mut learner, i, &format!("never again {i}"));
    }
    assert!(strings(&dict).is_empty());
    // ...and a value that then recurs is still learnt.
    for i in 0..LEARN_AFTER as i64 {
        record(&mut dict, &mut learner, i, "now it recurs");
    }
    assert_eq!(strings(&dict), vec!["now it recurs"]);
}

/// A list of new strings packed into a string array record rewrites their
/// records in place: none of them, and no bytes of the array, is learnt.
#[test]
fn strings_packed_into_a_string_array_are_not_counted() {
    let mut dict = Dictionary::new();
    let mut learner = Learner::new();
    let words: Vec<String> = (0..10).map(|i| format!("привет, мир номер {i}")).collect();
    let mut docs = Vec::new();
    for _ in 0..5 {
        let mut enc = Encoder::with_dictionary(&dict);
        enc.begin_array().unwrap();
        for w in &words {
            enc.str(w).unwrap();
        }
        enc.end_array().unwrap();
        learner.learn(&enc, &mut dict);
        docs.push(enc.finish().unwrap());
    }
    assert!(strings(&dict).is_empty(), "{:?}", dict.entries());
    for d in &docs {
        let mut scratch = Vec::new();
        let doc = Document::open_with(d, &dict, &mut scratch).unwrap();
        let got: Vec<&str> = doc
            .root()
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(got, words);
    }
}

/// A document counts once for a string, however often it writes it, even
/// when the string table (bounded before a dictionary has entries) forgets
/// the string between two uses and writes it again.
#[test]
fn one_long_document_counts_once() {
    let mut dict = Dictionary::new();
    let mut learner = Learner::new();
    let mut enc = Encoder::with_dictionary(&dict);
    enc.begin_array().unwrap();
    // Three-byte strings, too short to be candidates (which would fill
    // the learner's table and make it start over).
    let short = |i: u32| -> String {
        let c = |d: u32| char::from(b'!' + (d % 94) as u8);
        [c(i), c(i / 94), c(i / 94 / 94)].iter().collect()
    };
    for copy in 0..LEARN_AFTER {
        enc.str("written by one document only").unwrap();
        // Enough new strings for the table to turn over twice, with ints
        // between them (so that the array is not packed).
        for i in 0..140_000u32 {
            enc.str(&short(copy * 140_000 + i)).unwrap();
            enc.i64(i64::from(i)).unwrap();
        }
    }
    enc.end_array().unwrap();
    learner.learn(&enc, &mut dict);
    enc.finish().unwrap();
    assert!(strings(&dict).is_empty(), "{:?}", strings(&dict));
}

/// `learn_strings` (what Python's `roving.Dictionary` learns with, after
/// growing every shape itself): recurring value strings only, no shapes,
/// while the base is shorter than `LEARN_MAX_BASE`; nothing when frozen.
#[test]
fn learn_strings_learns_recurring_strings_and_no_shapes() {
    let mut dict = Dictionary::new();
    let mut learner = Learner::new();
    let mut docs = Vec::new();
    for n in 0..LEARN_AFTER as i64 + 1 {
        let mut enc = Encoder::with_dictionary(&dict);
        enc.begin_map().unwrap();
        enc.key("id").unwrap();
        enc.i64(n).unwrap();
        enc.key("v").unwrap();
        enc.str("delivered").unwrap();
        enc.end_map().unwrap();
        learner.learn_strings(&enc, &mut dict);
        docs.push(enc.finish().unwrap());
    }
    assert_eq!(strings(&dict), ["delivered"]);
    assert_eq!(dict.len(), 1, "no shape learnt");
    for (n, doc) in docs.iter().enumerate() {
        assert_eq!(read_back(doc, &dict), (n as i64, "delivered".to_owned()));
    }
    // A frozen dictionary learns nothing.
    let mut frozen = Dictionary::new();
    frozen.freeze();
    let mut learner = Learner::new();
    for _ in 0..5 {
        let mut enc = Encoder::with_dictionary(&frozen);
        enc.str("delivered").unwrap();
        learner.learn_strings(&enc, &mut frozen);
    }
    assert!(frozen.is_empty());
    // A base already past LEARN_MAX_BASE learns no string.
    let mut full = Dictionary::new();
    for i in 0..LEARN_MAX_BASE / 8 {
        full.add_string(&format!("s{i:06}")).unwrap();
    }
    assert!(full.base_len() >= LEARN_MAX_BASE);
    let before = full.len();
    let mut learner = Learner::new();
    for _ in 0..5 {
        let mut enc = Encoder::with_dictionary(&full);
        enc.str("delivered").unwrap();
        learner.learn_strings(&enc, &mut full);
    }
    assert_eq!(full.len(), before);
}
