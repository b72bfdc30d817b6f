//! Writing `str` objects.

use pyo3::ffi;
use pyo3::prelude::*;

use super::failure::{fail_msg, EncodeResult, Fail};
use super::State;

impl<'py> State<'py, '_> {
    #[inline(always)]
    pub(super) unsafe fn str(&mut self, o: *mut ffi::PyObject) -> EncodeResult {
        // SAFETY: `o` is a live str (or subclass).
        let s = unsafe { str_bytes(o) }.ok_or_else(|| self.str_error())?;
        // SAFETY: str_bytes returns UTF-8 (CPython's own encoding of the str).
        Ok(self.enc.str(unsafe { std::str::from_utf8_unchecked(s) })?)
    }

    #[cold]
    pub(super) fn str_error(&self) -> Box<Fail> {
        let e = PyErr::take(self.py);
        let detail = e.map(|e| e.to_string()).unwrap_or_default();
        fail_msg(format!("cannot encode str: {detail}"))
    }
}

/// The UTF-8 bytes of a str (no copy for ASCII; CPython caches the UTF-8
/// form of other strings). `None` with a Python error set for strings with
/// lone surrogates.
///
/// # Safety
/// `o` must be a live `str` (or subclass); the bytes live as long as it.
#[inline]
pub(super) unsafe fn str_bytes<'a>(o: *mut ffi::PyObject) -> Option<&'a [u8]> {
    // SAFETY: `o` is a live str (caller's contract).
    unsafe {
        if ffi::PyUnicode_IS_COMPACT_ASCII(o) != 0 {
            // A compact ASCII string's characters (one byte each, which is
            // their UTF-8) follow its header (CPython's _PyUnicode_COMPACT_DATA).
            let n = ffi::PyUnicode_GET_LENGTH(o) as usize;
            let p = o.cast::<ffi::PyASCIIObject>().add(1).cast::<u8>();
            return Some(std::slice::from_raw_parts(p, n));
        }
        let mut n: ffi::Py_ssize_t = 0;
        let p = ffi::PyUnicode_AsUTF8AndSize(o, &mut n);
        if p.is_null() {
            return None;
        }
        Some(std::slice::from_raw_parts(p as *const u8, n as usize))
    }
}
