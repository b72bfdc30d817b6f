//! Validating a bound document starts after its dictionary's base (whose
//! records were checked once, when the dictionary grew): it must accept and
//! refuse exactly what validating the whole plain document does, with the
//! same error kind at the same offset.

use proptest::prelude::*;
use roving::{Dictionary, Document, Encoder};

/// A dictionary with short and long keys, a shape with a hash index (more
/// than 8 keys), and string entries.
fn dictionary(long_key: bool) -> Dictionary {
    let mut d = Dictionary::new();
    d.add_shape(&["id", "name", "tags"]).unwrap();
    d.add_string("status-ok").unwrap();
    let wide: Vec<String> = (0..12)
        .map(|i| {
            if long_key && i == 3 {
                "k".repeat(80)
            } else {
                format!("field{i}")
            }
        })
        .collect();
    d.add_shape(&wide).unwrap();
    d.add_string("Planet Earth").unwrap();
    d
}

/// A bound document: maps of the dictionary's shapes and of new ones,
/// dictionary strings and new strings, numbers.
fn bound_document(d: &Dictionary, n: u8, long_key: bool) -> Vec<u8> {
    let mut e = Encoder::with_dictionary(d);
    e.begin_array().unwrap();
    e.begin_map().unwrap();
    e.key("id").unwrap();
    e.i64(i64::from(n) * 1000).unwrap();
    e.key("name").unwrap();
    e.str("status-ok").unwrap();
    e.key("tags").unwrap();
    e.begin_array().unwrap();
    e.str("Planet Earth").unwrap();
    e.str("new string").unwrap();
    e.end_array().unwrap();
    e.end_map().unwrap();
    for r in 0..2 {
        e.begin_map().unwrap();
        for i in 0..12 {
            let key = if long_key && i == 3 {
                "k".repeat(80)
            } else {
                format!("field{i}")
            };
            e.key(&key).unwrap();
            e.f64(f64::from(i) + f64::from(r) / 4.0).unwrap();
        }
        e.end_map().unwrap();
    }
    e.begin_map().unwrap();
    e.key("own").unwrap();
    e.u64(u64::from(n)).unwrap();
    e.key("id").unwrap();
    e.null().unwrap();
    e.end_map().unwrap();
    e.end_array().unwrap();
    e.finish().unwrap()
}

/// What validating the whole plain document of `doc` gives: `Ok`, or the
/// error's kind and its offset moved into `doc` (as `open_with` moves it).
fn whole(doc: &[u8], d: &Dictionary) -> Result<(), (roving::ErrorKind, Option<u64>)> {
    let mut scratch = Vec::new();
    let plain = match roving::dictionary::resolve(doc, d, &mut scratch) {
        Ok(p) => p.to_vec(),
        Err(e) => return Err((e.kind().clone(), e.offset())),
    };
    let shift = match roving::layout::read_binding(doc) {
        Ok(Some(b)) => Some((plain.len() - (doc.len() - b.end), b.end)),
        _ => None,
    };
    roving::validate(&plain).map_err(|e| {
        let off = match (e.offset(), shift) {
            (Some(o), Some((base, end))) if o as usize >= base => {
                Some((o as usize - base + end) as u64)
            }
            (o, _) => o,
        };
        (e.kind().clone(), off)
    })
}

/// What `open_with` (which starts after the base) gives.
fn seeded(doc: &[u8], d: &Dictionary) -> Result<(), (roving::ErrorKind, Option<u64>)> {
    let mut scratch = Vec::new();
    Document::open_with(doc, d, &mut scratch)
        .map(drop)
        .map_err(|e| (e.kind().clone(), e.offset()))
}

#[test]
fn bound_documents_validate_after_the_base() {
    for long_key in [false, true] {
        let d = dictionary(long_key);
        let doc = bound_document(&d, 1, long_key);
        assert_eq!(seeded(&doc, &d), Ok(()));
        assert_eq!(whole(&doc, &d), Ok(()));
    }
}

/// Cases for [`references_into_the_base`]: a dictionary, a document
/// bound to it, then the dictionary grown by later entries (whose records
/// lie past the document's base, where its own records are).
fn grown_cases() -> Vec<(Dictionary, Vec<u8>)> {
    let mut cases = Vec::new();
    for long_key in [false, true] {
        let mut d = dictionary(long_key);
        let doc = bound_document(&d, 3, long_key);
        d.add_shape(&["later", "id"]).unwrap();
        cases.push((d, doc));
    }
    // A small base, so that one-byte references reach the later entries.
    let mut d = Dictionary::new();
    d.add_shape(&["a", "b"]).unwrap();
    let mut e = Encoder::with_dictionary(&d);
    e.begin_map().unwrap();
    e.key("a").unwrap();
    e.str("xy").unwrap();
    e.key("b").unwrap();
    e.i64(2).unwrap();
    e.end_map().unwrap();
    let doc = e.finish().unwrap();
    for s in ["c", "dd", "eee", "ffff"] {
        d.add_string(s).unwrap();
    }
    d.add_shape(&["g", "a"]).unwrap();
    cases.push((d, doc));
    cases
}

/// Each byte after the binding made a one-byte absolute reference to each
/// record start of the dictionary's whole base (its strings, which a value
/// slot may name; its shapes, which it may not; and the later entries'
/// records, which are not in the document), and to the byte after each:
/// the same verdict.
#[test]
fn references_into_the_base() {
    for (d, doc) in grown_cases() {
        let start = roving::layout::read_binding(&doc).unwrap().unwrap().end;
        // The whole base: the plain document of one bound to every entry.
        let mut e = Encoder::with_dictionary(&d);
        e.null().unwrap();
        let all = e.finish().unwrap();
        let mut scratch = Vec::new();
        let whole_base = roving::dictionary::resolve(&all, &d, &mut scratch)
            .unwrap()
            .to_vec();
        let base_end = whole_base.len()
            - (all.len() - roving::layout::read_binding(&all).unwrap().unwrap().end);
        let mut targets = Vec::new();
        let mut t = roving::layout::HEADER_LEN;
        while t < base_end {
            targets.extend([t, t + 1]);
            t = roving::layout::record_end(&whole_base, t).unwrap();
        }
        let mut refused = 0;
        for at in start..doc.len() {
            for &t in targets.iter().filter(|&&t| t < 64) {
                let mut bad = doc.clone();
                bad[at] = (t as u8) << 2 | 0b10;
                let verdict = seeded(&bad, &d);
                assert_eq!(
                    verdict,
                    whole(&bad, &d),
                    "byte {at} set to a reference to {t}"
                );
                refused += usize::from(verdict.is_err());
            }
        }
        assert!(refused > 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// One byte changed, a cut or bytes inserted after the binding: the
    /// same verdict as validating the whole plain document, also when the
    /// dictionary grew after the document was written (its seed then
    /// covers more than the document's base).
    #[test]
    fn same_verdict_as_the_whole_document(
        long_key in any::<bool>(),
        n in any::<u8>(),
        grow in 0usize..3,
        edit in 0u8..3,
        at in any::<usize>(),
        byte in any::<u8>(),
        extra in proptest::collection::vec(any::<u8>(), 1..8),
    ) {
        let mut d = dictionary(long_key);
        let mut doc = bound_document(&d, n, long_key);
        for g in 0..grow {
            d.add_shape(&[format!("later{g}"), "id".to_owned()]).unwrap();
            d.add_string(&format!("later string {g}")).unwrap();
        }
        let start = roving::layout::read_binding(&doc).unwrap().unwrap().end;
        let at = start + at % (doc.len() - start);
        match edit {
            0 => doc[at] = byte,
            1 => doc.truncate(at.max(start + 1)),
            _ => {
                let tail = doc.split_off(at);
                doc.extend_from_slice(&extra);
                doc.extend_from_slice(&tail);
            }
        }
        prop_assert_eq!(seeded(&doc, &d), whole(&doc, &d));
    }

    /// Any bytes after a binding: the same verdict too.
    #[test]
    fn any_records_after_the_base(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let d = dictionary(true);
        let mut doc = b"RV\x02".to_vec();
        roving::layout::write_binding(&mut doc, d.len() as u64, d.id());
        doc.extend_from_slice(&bytes);
        prop_assert_eq!(seeded(&doc, &d), whole(&doc, &d));
    }
}
