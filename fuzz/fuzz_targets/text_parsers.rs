//! Arbitrary text through the two text parsers: paths
//! (`PathSegment::parse`) and RFC 3339 timestamps (`Timestamp::from_str`).
//! Must never panic; what parses, written back in canonical form (paths as
//! `[N]`, `[-N]` and `["key"]` steps, timestamps by `to_rfc3339`), parses
//! back the same.
#![no_main]
use libfuzzer_sys::fuzz_target;
use roving::read::PathSegment;
use roving::Timestamp;

fn canonical(segs: &[PathSegment]) -> String {
    let mut s = String::from("$");
    for seg in segs {
        match seg {
            PathSegment::Index(i) => s.push_str(&format!("[{i}]")),
            PathSegment::FromEnd(n) => s.push_str(&format!("[-{n}]")),
            PathSegment::Key(k) => {
                s.push('[');
                s.push_str(&serde_json::to_string(k).expect("a string serializes"));
                s.push(']');
            }
        }
    }
    s
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(segs) = PathSegment::parse(text) {
        let again = canonical(&segs);
        assert_eq!(PathSegment::parse(&again).ok().as_deref(), Some(&segs[..]), "{again}");
    }
    if let Ok(t) = text.parse::<Timestamp>() {
        assert!(Timestamp::new(t.seconds, t.nanos, t.offset).is_some(), "{t:?}");
        let again = t.to_rfc3339();
        assert_eq!(again.parse::<Timestamp>().ok(), Some(t), "{text} -> {again}");
    }
});
