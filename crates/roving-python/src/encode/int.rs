//! Writing `int` objects: small ones read from the object itself where
//! its layout is known (CPython 3.11), others through CPython's API.

use pyo3::ffi;
use pyo3::prelude::*;

use super::failure::EncodeResult;
use super::State;

impl<'py> State<'py, '_> {
    #[inline]
    pub(super) unsafe fn int(&mut self, o: *mut ffi::PyObject) -> EncodeResult {
        // SAFETY: `o` is a live int (caller's contract).
        if let Some(v) = unsafe { small_int(o) } {
            return Ok(self.enc.i64(v)?);
        }
        // SAFETY: as above.
        unsafe { self.int_api(o) }
    }

    /// [`State::int`] through CPython's API (big integers, subclasses, or
    /// when the int layout is not known).
    ///
    /// # Safety
    /// `o` must be a live int (or subclass).
    #[inline(never)]
    unsafe fn int_api(&mut self, o: *mut ffi::PyObject) -> EncodeResult {
        let mut overflow = 0;
        // SAFETY: `o` is a live int (or subclass).
        let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(o, &mut overflow) };
        if overflow == 0 {
            if v == -1 {
                if let Some(e) = PyErr::take(self.py) {
                    return Err(e.into());
                }
            }
            return Ok(self.enc.i64(v)?);
        }
        // SAFETY: as above.
        let b = unsafe { Bound::from_borrowed_ptr(self.py, o) };
        let n: num_bigint::BigInt = b.extract()?;
        Ok(self.enc.bigint(&n)?)
    }
}

/// Whether [`small_int`] may read CPython 3.11 ints directly: 0 not yet
/// tested, 1 yes, 2 no.
static INT_DIRECT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The head of an `int` of CPython 3.11 (`Include/cpython/longintrepr.h`):
/// `ob_size` is the digit count, negative for a negative number; digits
/// are 30-bit, least significant first.
#[repr(C)]
struct Long311 {
    ob_base: ffi::PyVarObject,
    ob_digit: [u32; 2],
}

/// The value of an int of at most two digits (below 2**60 in magnitude),
/// read from the object, if [`int_layout_init`] found the layout known.
///
/// # Safety
/// `o` must be a live int (or subclass).
#[inline(always)]
pub(super) unsafe fn small_int(o: *mut ffi::PyObject) -> Option<i64> {
    if INT_DIRECT.load(std::sync::atomic::Ordering::Relaxed) != 1 {
        return None;
    }
    // SAFETY: the interpreter is CPython 3.11 with 30-bit digits (checked
    // by `int_layout_init`), so `o` has the layout of `Long311`, with
    // `|ob_size|` digits allocated; only those are read.
    unsafe { small_int_311(o) }
}

/// [`small_int`] without the check of the layout.
///
/// # Safety
/// CPython 3.11 with 30-bit digits, and `o` is a live int.
#[inline(always)]
unsafe fn small_int_311(o: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: caller's contract (see `small_int`).
    unsafe {
        let l = o.cast::<Long311>();
        let size = (*l).ob_base.ob_size;
        let d = std::ptr::addr_of!((*l).ob_digit).cast::<u32>();
        let mag = match size.unsigned_abs() {
            0 => return Some(0),
            1 => i64::from(*d),
            2 => i64::from(*d) | (i64::from(*d.add(1)) << 30),
            _ => return None,
        };
        Some(if size < 0 { -mag } else { mag })
    }
}

/// Enables [`small_int`] on CPython 3.11 with 30-bit digits if it reads a
/// few ints exactly as `PyLong_AsLongLong` does (once per process).
pub(super) fn int_layout_init(py: Python<'_>) {
    use std::sync::atomic::Ordering;
    if INT_DIRECT.load(Ordering::Relaxed) != 0 {
        return;
    }
    let ok = (|| -> PyResult<bool> {
        let sys = py.import("sys")?;
        let name: String = sys.getattr("implementation")?.getattr("name")?.extract()?;
        let info = sys.getattr("int_info")?;
        let bits: u32 = info.getattr("bits_per_digit")?.extract()?;
        let size: u32 = info.getattr("sizeof_digit")?.extract()?;
        if name != "cpython"
            || !(py.version_info() >= (3, 11) && py.version_info() < (3, 12))
            || bits != 30
            || size != 4
        {
            return Ok(false);
        }
        let mut vals = vec![0i64, 1, -1, 5, -5, 1000, -1000];
        for b in [29, 30, 31, 59, 60, 61, 62, 63] {
            let v = ((1u64 << b) - 1) as i64;
            vals.extend([v, -v, v.wrapping_add(1), v.wrapping_add(1).wrapping_neg()]);
        }
        vals.push(i64::MIN);
        for v in vals {
            // SAFETY: PyLong_FromLongLong returns a new reference or NULL
            // (then the error is taken); the test reads it as a 3.11 int,
            // which it is (checked above).
            let got = unsafe {
                let o = Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromLongLong(v))?;
                small_int_311(o.as_ptr())
            };
            let want = (v.unsigned_abs() < 1 << 60).then_some(v);
            if got != want {
                return Ok(false);
            }
        }
        Ok(true)
    })()
    .unwrap_or(false);
    INT_DIRECT.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
}
