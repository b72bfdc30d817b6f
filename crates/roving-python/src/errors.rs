//! The exception hierarchy: `RovingError` > `EncodeError` (also a
//! `TypeError`), `DecodeError` (also a `ValueError`, with `.offset`),
//! `ValidationError` (a `DecodeError` with `.path`).

use std::ffi::CStr;

use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};

static ROVING_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ENCODE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DECODE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static VALIDATION_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DICTIONARY_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn new_type(
    py: Python<'_>,
    name: &CStr,
    doc: &CStr,
    bases: &Bound<'_, PyTuple>,
) -> PyResult<Py<PyType>> {
    // SAFETY: name and doc are NUL-terminated; bases is a tuple of exception
    // classes (CPython accepts a tuple); the result is a new reference or NULL
    // with an exception set.
    unsafe {
        let t = pyo3::ffi::PyErr_NewExceptionWithDoc(
            name.as_ptr(),
            doc.as_ptr(),
            bases.as_ptr(),
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, t).map(|b| b.cast_into_unchecked::<PyType>().unbind())
    }
}

/// Creates the exception classes and adds them to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = ROVING_ERROR.get_or_try_init(py, || {
        new_type(
            py,
            c"roving.RovingError",
            c"Base class of the errors raised by roving.",
            &PyTuple::new(py, [py.get_type::<PyException>()])?,
        )
    })?;
    let enc = ENCODE_ERROR.get_or_try_init(py, || {
        new_type(
            py,
            c"roving.EncodeError",
            c"A value cannot be encoded; the message names its type and path. Also a TypeError, as json and orjson raise.",
            &PyTuple::new(py, [base.bind(py).clone(), py.get_type::<PyTypeError>()])?,
        )
    })?;
    let dec = DECODE_ERROR.get_or_try_init(py, || {
        new_type(
            py,
            c"roving.DecodeError",
            c"The bytes are not a valid roving document (or exceed a limit). `.offset` is the byte offset, or None.",
            &PyTuple::new(py, [base.bind(py).clone(), py.get_type::<PyValueError>()])?,
        )
    })?;
    let val = VALIDATION_ERROR.get_or_try_init(py, || {
        new_type(
            py,
            c"roving.ValidationError",
            c"A document does not match the requested type; `.path` says where (e.g. `$[3].views`).",
            &PyTuple::new(py, [dec.bind(py)])?,
        )
    })?;
    let dict = DICTIONARY_ERROR.get_or_try_init(py, || {
        new_type(
            py,
            c"roving.DictionaryError",
            c"A document needs a shared dictionary it was not given (or another one: the message names the id and entry count needed), or dictionary bytes are malformed.",
            &PyTuple::new(py, [dec.bind(py)])?,
        )
    })?;
    m.add("RovingError", base.bind(py))?;
    m.add("DictionaryError", dict.bind(py))?;
    m.add("EncodeError", enc.bind(py))?;
    m.add("DecodeError", dec.bind(py))?;
    m.add("ValidationError", val.bind(py))?;
    Ok(())
}

fn make<'py>(
    py: Python<'py>,
    cell: &PyOnceLock<Py<PyType>>,
    msg: String,
) -> (Bound<'py, PyAny>, PyErr) {
    match cell.get(py) {
        Some(t) => match t.bind(py).call1((msg,)) {
            Ok(inst) => {
                let err = PyErr::from_value(inst.clone());
                (inst, err)
            }
            Err(e) => (py.None().into_bound(py), e),
        },
        None => {
            let err = PyValueError::new_err(msg);
            (py.None().into_bound(py), err)
        }
    }
}

/// An `EncodeError` with this message.
#[cold]
pub(crate) fn encode_error(py: Python<'_>, msg: String) -> PyErr {
    make(py, &ENCODE_ERROR, msg).1
}

/// A `DecodeError` with this message and byte offset.
#[cold]
pub(crate) fn decode_error(py: Python<'_>, msg: String, offset: Option<u64>) -> PyErr {
    let (inst, err) = make(py, &DECODE_ERROR, msg);
    if !inst.is_none() {
        let _ = inst.setattr("offset", offset);
    }
    err
}

/// A `ValidationError` with this message and path.
#[cold]
pub(crate) fn validation_error(py: Python<'_>, msg: String, path: String) -> PyErr {
    let (inst, err) = make(py, &VALIDATION_ERROR, msg);
    if !inst.is_none() {
        let _ = inst.setattr("offset", py.None());
        let _ = inst.setattr("path", path);
    }
    err
}

/// Converts a core error met while reading a document.
#[cold]
pub(crate) fn from_core(py: Python<'_>, e: &roving::Error) -> PyErr {
    use roving::ErrorKind as K;
    if let K::DictionaryRequired | K::DictionaryMismatch | K::BadDictionary = e.kind() {
        return dictionary_error(py, e);
    }
    decode_error(py, e.to_string(), e.offset())
}

/// A `DictionaryError` (a `DecodeError`) for `e`.
#[cold]
fn dictionary_error(py: Python<'_>, e: &roving::Error) -> PyErr {
    let (inst, err) = make(py, &DICTIONARY_ERROR, e.to_string());
    if !inst.is_none() {
        let _ = inst.setattr("offset", e.offset());
    }
    err
}

/// `e` with `prefix: ` before its message if it is a `ValidationError`
/// (same `.path` and cause), else `e` unchanged: the store names the key.
#[cold]
pub(crate) fn prefix_validation(py: Python<'_>, e: PyErr, prefix: &str) -> PyErr {
    let Some(t) = VALIDATION_ERROR.get(py) else {
        return e;
    };
    if !e.is_instance(py, t.bind(py)) {
        return e;
    }
    let v = e.value(py);
    let msg = v.str().map(|s| s.to_string()).unwrap_or_default();
    let path: String = v
        .getattr("path")
        .and_then(|p| p.extract())
        .unwrap_or_default();
    let new = validation_error(py, format!("{prefix}: {msg}"), path);
    new.set_cause(py, e.cause(py));
    new
}
