//! The error type as a user's `?` and error reporters see it.

use std::error::Error as _;

#[test]
fn an_io_error_is_the_source_of_the_error_made_from_it() {
    let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file: x.rov");
    let err = roving::Error::from(io);
    assert_eq!(*err.kind(), roving::ErrorKind::Io);
    assert_eq!(err.to_string(), "I/O error: no such file: x.rov");
    let source = err.source().expect("the io::Error is the source");
    let io = source.downcast_ref::<std::io::Error>().unwrap();
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    // Clones share it.
    assert!(err.clone().source().is_some());
    // Errors of the format have none.
    assert!(roving::validate(b"nope").unwrap_err().source().is_none());
}

/// Bytes that are not a roving document but data a migrating program still
/// has say what they look like; other bytes keep the plain message.
#[test]
fn bad_magic_says_what_the_bytes_look_like() {
    let msg = |b: &[u8]| roving::validate(b).unwrap_err().to_string();
    let json = "not a roving document (bad magic): it looks like JSON text, \
                which from_json converts (byte offset 0)";
    assert_eq!(msg(br#"{"a": 1}"#), json);
    assert_eq!(msg(b"\xEF\xBB\xBF\n  [1, 2]"), json);
    assert_eq!(msg(br#""text""#), json);
    assert_eq!(
        msg(b"\x80\x04\x95\x05\x00"),
        "not a roving document (bad magic): it looks like a Python pickle (byte offset 0)"
    );
    assert_eq!(
        msg(b"\x1f\x8b\x08\x00"),
        "not a roving document (bad magic): it looks like gzip-compressed data (byte offset 0)"
    );
    assert_eq!(
        msg(b"nope"),
        "not a roving document (bad magic) (byte offset 0)"
    );
    assert_eq!(
        msg(b"12"),
        "not a roving document (bad magic) (byte offset 0)"
    );
    assert_eq!(
        msg(b""),
        "truncated input: the input is empty (byte offset 0)"
    );
    assert_eq!(msg(b"R"), "truncated input (byte offset 1)");
    for b in [&b"{}"[..], b"", b"\x80\x05"] {
        let e = roving::Document::open(b).unwrap_err();
        assert_eq!(e.to_string(), msg(b));
    }
}
