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
