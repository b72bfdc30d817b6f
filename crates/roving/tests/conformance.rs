//! JSONTestSuite (`data/jsontestsuite/test_parsing`): every `y_` case
//! converts to roving and back to JSON that parses to the same value; every
//! `n_` case is rejected with an error; `i_` cases must not crash.

mod common;

fn suite() -> Vec<(String, Vec<u8>)> {
    let dir = common::repo_data("jsontestsuite/test_parsing");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| {
            let p = f.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert!(out.len() > 300, "JSONTestSuite not found or incomplete");
    out
}

#[test]
fn y_cases_round_trip() {
    let mut failures = vec![];
    let mut n = 0;
    for (name, text) in suite().into_iter().filter(|(n, _)| n.starts_with("y_")) {
        n += 1;
        let doc = match roving::json::from_json(&text) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let doc = roving::Document::open(&doc).expect("encoder output validates");
        let back = roving::json::to_json(doc.root()).unwrap();
        let want: serde_json::Value = serde_json::from_slice(&text).unwrap();
        let got: serde_json::Value = serde_json::from_str(&back).unwrap();
        if want != got {
            failures.push(format!("{name}: {want} != {got}"));
        }
        // Pretty output parses to the same value too.
        let pretty = roving::json::to_json_pretty(doc.root(), 2).unwrap();
        let got: serde_json::Value = serde_json::from_str(&pretty).unwrap();
        assert_eq!(want, got, "{name} (pretty)");
    }
    assert!(n >= 95, "only {n} y_ cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn n_cases_rejected() {
    let mut accepted = vec![];
    let mut n = 0;
    for (name, text) in suite().into_iter().filter(|(n, _)| n.starts_with("n_")) {
        n += 1;
        match roving::json::from_json(&text) {
            Ok(_) => accepted.push(name),
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert!(e.offset().is_some(), "{name}: error without an offset: {e}");
            }
        }
    }
    assert!(n >= 180, "only {n} n_ cases");
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
}

#[test]
fn i_cases_do_not_crash() {
    for (_, text) in suite().into_iter().filter(|(n, _)| n.starts_with("i_")) {
        if let Ok(doc) = roving::json::from_json(&text) {
            let doc = roving::Document::open(&doc).unwrap();
            roving::json::to_json(doc.root()).unwrap();
        }
    }
}

#[test]
fn syntax_errors_have_line_and_column() {
    let e = roving::json::from_json(b"{\n  \"a\": tru\n}").unwrap_err();
    assert_eq!(e.kind(), &roving::ErrorKind::JsonSyntax);
    assert_eq!(e.line_col(), Some((2, 8)));
    assert!(e.to_string().contains("line 2, column 8"), "{e}");
}

/// The commonest mistakes are named: a leading zero, a byte order mark.
#[test]
fn syntax_errors_say_what_is_wrong() {
    for (text, says) in [
        (&b"01"[..], "leading zero"),
        (b"-01", "leading zero"),
        (b"[1, 007]", "leading zero"),
        (b"\xEF\xBB\xBF[]", "byte order mark"),
        (b"[1] 2", "trailing characters"),
        (b"[1, ?]", "expected a value"),
    ] {
        let e = roving::json::from_json(text).unwrap_err();
        assert_eq!(e.kind(), &roving::ErrorKind::JsonSyntax);
        assert!(e.to_string().contains(says), "{text:?}: {e}");
    }
    for ok in [&b"0"[..], b"-0", b"0.5", b"[0,10]", b"0e1"] {
        assert!(roving::json::from_json(ok).is_ok(), "{ok:?}");
    }
}

#[test]
fn duplicate_keys_keep_first_position_and_last_value() {
    // Found by the json_roundtrip fuzz target: the merged map must convert
    // back to the same JSON every time.
    let doc = roving::json::from_json(br#"{"a":"b","x":1,"a":"c"}"#).unwrap();
    let d = roving::Document::open(&doc).unwrap();
    let text = roving::json::to_json(d.root()).unwrap();
    assert_eq!(text, r#"{"a":"c","x":1}"#);
    let again = roving::json::from_json(text.as_bytes()).unwrap();
    let d2 = roving::Document::open(&again).unwrap();
    assert!(d.root() == d2.root());
    assert_eq!(roving::json::to_json(d2.root()).unwrap(), text);
}
