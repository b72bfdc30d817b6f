//! Why an object cannot be encoded, and the Python error that says so.

use pyo3::prelude::*;

use crate::error_path::ErrorPath;
use crate::errors::encode_error;

/// Why an object cannot be encoded.
enum FailKind {
    /// A Python exception (from a hook or CPython), propagated with a note.
    Py(PyErr),
    /// An encoding error with this message.
    Msg(String),
}

/// A failure and the path to where it happened.
pub(super) struct Fail {
    kind: FailKind,
    pub(super) path: ErrorPath,
}

/// Nothing (the value was written), or why it cannot be.
pub(super) type EncodeResult = Result<(), Box<Fail>>;

impl Fail {
    /// A failure at the object being written (its path is added on the way up).
    #[cold]
    fn boxed(kind: FailKind) -> Box<Fail> {
        Box::new(Fail {
            kind,
            path: ErrorPath::new(),
        })
    }
}

/// An encoding error with message `m`.
#[cold]
pub(super) fn fail_msg(m: String) -> Box<Fail> {
    Fail::boxed(FailKind::Msg(m))
}

impl From<PyErr> for Box<Fail> {
    #[cold]
    fn from(e: PyErr) -> Box<Fail> {
        Fail::boxed(FailKind::Py(e))
    }
}

impl From<roving::Error> for Box<Fail> {
    #[cold]
    fn from(e: roving::Error) -> Box<Fail> {
        fail_msg(e.to_string())
    }
}

/// The Python error of a failure: an `EncodeError` naming the path, or the
/// Python exception raised, with a note naming it.
#[allow(clippy::boxed_local)]
pub(super) fn into_pyerr(py: Python<'_>, f: Box<Fail>) -> PyErr {
    let path = f.path.format(py);
    match f.kind {
        FailKind::Msg(m) => encode_error(py, format!("{m} at {path}")),
        FailKind::Py(e) => {
            let _ = e.add_note(py, format!("while encoding the value at {path}"));
            e
        }
    }
}
