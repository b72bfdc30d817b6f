//! The Python `bytes` object a large output is copied into.
//!
//! `dumps` and `from_json` build a document in the encoder's buffer, then
//! copy it into a new `bytes` object. For a large document that object is
//! fresh memory from the system: each 4 KiB page faults in as the copy
//! first touches it. Asking for huge pages (`MADV_HUGEPAGE`) before the
//! copy makes it one fault per 2 MiB. On 1000people perturbed to 100 MB,
//! page faults were about a fifth of `from_json`'s time (those of the
//! encoder's buffer and of this copy); with the hint it took 0.93 of its
//! time, and `dumps` 0.88 (docs/ARCHITECTURE.md, unsafe code).

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Outputs at least this long get the huge-page hint (smaller ones come
/// from memory the allocator reuses, which faults no more).
const HUGE_FROM: usize = 4 << 20;

/// A huge page of the kernel's transparent huge pages on x86_64 and
/// aarch64 (with 4 KiB base pages).
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// A new `bytes` object holding a copy of `out`.
pub(crate) fn bytes_of<'py>(py: Python<'py>, out: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    if out.len() < HUGE_FROM {
        return Ok(PyBytes::new(py, out));
    }
    let Ok(len) = pyo3::ffi::Py_ssize_t::try_from(out.len()) else {
        return Ok(PyBytes::new(py, out));
    };
    // SAFETY: `PyBytes_FromStringAndSize` with a null pointer returns a
    // new reference to a `bytes` object of `len` uninitialised bytes (or
    // null with an exception set, handled by `from_owned_ptr_or_err`).
    // Nothing else holds it yet, so writing its bytes before handing it
    // out is allowed: `PyBytes_AsString` points at its `len` bytes (and a
    // terminating zero that CPython wrote), all written below from `out`
    // (`len` bytes, not overlapping a new object).
    unsafe {
        let ob = pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), len);
        let b = Bound::from_owned_ptr_or_err(py, ob)?;
        let data = pyo3::ffi::PyBytes_AsString(b.as_ptr()).cast::<u8>();
        if data.is_null() {
            return Err(PyErr::fetch(py));
        }
        hint_huge_pages(data, out.len());
        std::ptr::copy_nonoverlapping(out.as_ptr(), data, out.len());
        Ok(b.cast_into_unchecked::<PyBytes>())
    }
}

/// Asks the kernel to back the whole huge pages within `len` bytes at
/// `data` with huge pages when they first fault in (a hint: nothing
/// changes if it is refused or unsupported).
#[cfg(target_os = "linux")]
fn hint_huge_pages(data: *mut u8, len: usize) {
    let start = (data as usize).next_multiple_of(HUGE_PAGE);
    let end = (data as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: `start..end` lies within the `len` bytes at `data`,
        // memory this process owns (the new `bytes` object), aligned to a
        // page. `MADV_HUGEPAGE` changes how its pages are backed, not
        // their contents or access; its result is ignored (a hint).
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn hint_huge_pages(_data: *mut u8, _len: usize) {}
